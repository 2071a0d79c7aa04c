"""The jobs of ``aiagent batch``, each run on one repository inside a worker process.

Each job calls the same engine entry points as its single-repository command
(``security-audit``, ``--mode log-analysis``, ``wiki``, ``--mode code-review``), with the
repository's settings loaded untrusted, and writes its reports into ``out``. It returns
the task's findings by severity and its cost; a problem with the repository is a
:class:`~aiagent.app.batch.workspace.TaskFailure` (one line).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.app.batch.repos import RepoSpec
from aiagent.app.batch.workspace import TaskFailure

SEVERITIES = ("critical", "high", "medium", "low", "info")


@dataclass(frozen=True, slots=True)
class JobOutcome:
    findings: dict[str, int]
    outputs: tuple[str, ...]
    cost: float = 0.0
    notes: tuple[str, ...] = ()


def untrusted_settings(root: Path) -> Any:
    """The repository's settings as an untrusted folder's: its project config cannot widen
    anything (config/trust.py), whatever the user trusts."""
    from aiagent.infra.config.settings import ConfigError, Settings

    try:
        return Settings.load(root, {}, env=_untrusting_env())
    except ConfigError as exc:
        raise TaskFailure(f"configuration: {exc}") from None


def _untrusting_env() -> dict[str, str]:
    import os

    from aiagent.infra.config.trust import TRUST_ENV

    return {k: v for k, v in os.environ.items() if k != TRUST_ENV}


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.name


def _counts(severities: list[str]) -> dict[str, int]:
    counted = Counter(s.lower() for s in severities)
    return {s: counted[s] for s in SEVERITIES if counted[s]}


def security_audit(root: Path, out: Path, spec: RepoSpec) -> JobOutcome:
    """``aiagent security-audit`` (static engine, no skills, no LLM): JSON and SARIF."""
    from aiagent.engines.security.config import load_config
    from aiagent.engines.security.defaults import load_defaults, policy_path
    from aiagent.engines.security.engine import AuditOptions, run_audit
    from aiagent.engines.security.errors import SecurityConfigError
    from aiagent.engines.security.paths import default_osv_db
    from aiagent.engines.security.report import get_renderer
    from aiagent.engines.security.report.common import ReportOptions

    settings = untrusted_settings(root)
    try:
        defaults = load_defaults(settings)
        config = load_config(policy_path(root, None, defaults))
    except SecurityConfigError as exc:
        raise TaskFailure(f"security policy: {exc}") from None
    result = run_audit(root, config, AuditOptions(jobs=1, osv_db=default_osv_db()))
    options = ReportOptions(include_info=False, color=False, width=120)
    outputs = (_write(out / "security-audit.json", get_renderer("json")(result, options)),
               _write(out / "security-audit.sarif", get_renderer("sarif")(result, options)))
    return JobOutcome(_counts([f.severity.value for f in result.findings]), outputs)


def log_analysis(root: Path, out: Path, spec: RepoSpec) -> JobOutcome:
    """``aiagent --headless --mode log-analysis --file F`` for each listed file (the static
    report; the batch asks no model): JSON and Markdown per file."""
    from aiagent.engines.logs.render import MODEL_WOULD_ADD, document, markdown
    from aiagent.engines.logs.source import LogInputError, open_log
    from aiagent.engines.logs.static import analyse

    if not spec.files:
        raise TaskFailure("log-analysis needs files=A,B on the repository's line")
    severities, outputs = [], []
    for name in spec.files:
        path = (root / name).resolve()
        if not path.is_relative_to(root.resolve()) or not path.exists() or path.is_dir():
            raise TaskFailure(f"{name}: no such file in the repository")
        try:
            source = open_log(path, None)  # type: ignore[arg-type]  # never read: a path is given
            try:
                static = analyse(source, None)
            finally:
                source.close()
        except LogInputError as exc:
            raise TaskFailure(f"{name}: {exc}") from None
        doc = document(static, None, model_note=f"static report only (batch); {MODEL_WOULD_ADD}")
        stem = "logs/" + re.sub(r"[^A-Za-z0-9._-]+", "_", name)
        outputs.append(_write(out / f"{stem}.json", json.dumps(doc, indent=2) + "\n"))
        outputs.append(_write(out / f"{stem}.md", markdown(doc)))
        severities.append(doc["severity"])
    return JobOutcome(_counts(severities), tuple(outputs))


def wiki(root: Path, out: Path, spec: RepoSpec) -> JobOutcome:
    """``aiagent wiki`` (static: no model, no test run): the Markdown wiki folder."""
    import os

    from aiagent.app import Application
    from aiagent.engines.wiki.errors import WikiError
    from aiagent.engines.wiki.pipeline import WikiRequest, generate
    from aiagent.engines.wiki.progress import Progress

    settings = untrusted_settings(root)
    sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  # closed below
    say = Progress(sink, False)
    request = WikiRequest(root, out / "wiki", "markdown", True, "mermaid", True, None,
                          settings=settings,
                          skill_runtime=Application(settings, interactive=False).skill_runtime)
    try:
        summary = generate(request, say)
    except WikiError as exc:
        raise TaskFailure(f"wiki: {exc}") from None
    finally:
        say.close()
        sink.close()
    return JobOutcome({}, ("wiki/",), notes=(f"{summary.pages} pages",))


def code_review(root: Path, out: Path, spec: RepoSpec) -> JobOutcome:
    """``aiagent --headless --mode code-review --diff A..B``: the static part (the batch
    builds no agent): JSON, SARIF and Markdown."""
    from aiagent.engines.review import DiffSpec, PipelineError, ReviewInputError, ReviewRequest
    from aiagent.engines.review import review as run_review
    from aiagent.engines.review.render import RENDERERS
    from aiagent.engines.security.defaults import load_defaults

    if not spec.range:
        raise TaskFailure("code-review needs range=A..B on the repository's line")
    settings = untrusted_settings(root)
    request = ReviewRequest(root, DiffSpec(range=spec.range), security=load_defaults(settings))
    try:
        report = run_review(request, None)
    except (ReviewInputError, PipelineError) as exc:
        raise TaskFailure(f"code-review: {exc}") from None
    outputs = tuple(_write(out / f"code-review.{ext}", RENDERERS[fmt](report, ""))
                    for fmt, ext in (("json", "json"), ("sarif", "sarif"), ("markdown", "md")))
    return JobOutcome(_counts([f.severity for f in report.findings]), outputs,
                      notes=("static review only: no model in a batch",))


JOBS: dict[str, Callable[[Path, Path, RepoSpec], JobOutcome]] = {
    "security-audit": security_audit,
    "log-analysis": log_analysis,
    "wiki": wiki,
    "code-review": code_review,
}
HISTORY_JOBS = frozenset({"code-review"})  # need more than a depth-1 clone
