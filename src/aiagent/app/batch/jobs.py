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
from typing import TYPE_CHECKING, Any

from aiagent.app.batch.repos import RepoSpec
from aiagent.app.batch.workspace import TaskFailure

if TYPE_CHECKING:
    from aiagent.app.batch.llm import ModelUse

SEVERITIES = ("critical", "high", "medium", "low", "info")
WIKI_CONCURRENCY = 4  # model calls of one wiki at once (the batch's limit caps them all)


@dataclass(frozen=True, slots=True)
class JobOutcome:
    findings: dict[str, int]
    outputs: tuple[str, ...]
    cost: float = 0.0
    notes: tuple[str, ...] = ()


def untrusted_settings(root: Path, flags: dict[str, Any] | None = None) -> Any:
    """The repository's settings as an untrusted folder's: its project config cannot widen
    anything (config/trust.py), whatever the user trusts."""
    from aiagent.infra.config.flags import flags_layer
    from aiagent.infra.config.settings import ConfigError, Settings

    try:
        return Settings.load(root, flags_layer(flags or {}), env=_untrusting_env())
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


def security_audit(root: Path, out: Path, spec: RepoSpec, model: ModelUse | None = None) -> JobOutcome:
    """``aiagent security-audit`` (no skills; ``--llm``: its LLM phase): JSON and SARIF."""
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
    if model is not None:
        _llm_phase(model, settings, result, config)
    options = ReportOptions(include_info=False, color=False, width=120)
    outputs = (_write(out / "security-audit.json", get_renderer("json")(result, options)),
               _write(out / "security-audit.sarif", get_renderer("sarif")(result, options)))
    return JobOutcome(_counts([f.severity.value for f in result.findings]), outputs,
                      model.cost if model else 0.0)


def _llm_phase(model: ModelUse, settings: Any, result: Any, config: Any) -> None:
    """``security-audit --llm``'s phase over ``result`` (in place; its errors in the report).
    The budget in tokens is the user's (a repository cannot raise it: trust.toml)."""
    import asyncio

    from aiagent.engines.security.analyzers.phase import PhaseOptions, run_llm_phase
    from aiagent.engines.security.analyzers.plan import DEFAULT_BUDGET

    section = settings.security
    options = PhaseOptions(analyzers=tuple(section.llm_analyzers or ()),
                           budget_tokens=section.llm_budget_tokens or DEFAULT_BUDGET,
                           max_calls=section.max_llm_calls)
    provider = _provider(model, settings)

    async def phase() -> None:
        try:
            await run_llm_phase(provider, model.model, result, config, options, cost=model.price)
        finally:
            await provider.aclose()

    asyncio.run(phase())


def _provider(model: ModelUse, settings: Any) -> Any:
    from aiagent.contracts.providers import AuthError

    try:
        return model.app(settings).provider()
    except AuthError as exc:
        raise TaskFailure(f"model: {exc}") from None


def log_analysis(root: Path, out: Path, spec: RepoSpec, model: ModelUse | None = None) -> JobOutcome:
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


def wiki(root: Path, out: Path, spec: RepoSpec, model: ModelUse | None = None) -> JobOutcome:
    """``aiagent wiki`` (no test run; with ``--llm`` its model passes at the standard depth):
    the Markdown wiki folder. The budget spent half-way: the static wiki, said in the reason."""
    from aiagent.app.batch.llm import BudgetReached
    from aiagent.contracts.providers import ProviderError

    settings = untrusted_settings(root)
    try:
        summary = _wiki(root, out, settings, model)
    except BudgetReached:
        assert model is not None and model.refused
        summary = _wiki(root, out, settings, None)
    except ProviderError as exc:
        raise TaskFailure(f"model: {exc}") from None
    notes = (f"{summary.pages} pages",) + ((f"{model.calls} model calls",) if model else ())
    return JobOutcome({}, ("wiki/",), model.cost if model else 0.0, notes)


def _wiki(root: Path, out: Path, settings: Any, model: ModelUse | None) -> Any:
    import os
    import shutil

    from aiagent.app import Application
    from aiagent.engines.wiki.errors import WikiError
    from aiagent.engines.wiki.passes import Analyst
    from aiagent.engines.wiki.pipeline import WikiRequest, generate
    from aiagent.engines.wiki.progress import Progress

    analyst = None
    if model is not None:
        analyst = Analyst(_provider(model, settings), model.model, "standard", WIKI_CONCURRENCY,
                          model.price)
    shutil.rmtree(out / "wiki", ignore_errors=True)
    sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  # closed below
    say = Progress(sink, False)
    request = WikiRequest(root, out / "wiki", "markdown", True, "mermaid", True, analyst,
                          settings=settings,
                          skill_runtime=Application(settings, interactive=False).skill_runtime)
    try:
        return generate(request, say)
    except WikiError as exc:
        raise TaskFailure(f"wiki: {exc}") from None
    finally:
        say.close()
        sink.close()


def code_review(root: Path, out: Path, spec: RepoSpec, model: ModelUse | None = None) -> JobOutcome:
    """``aiagent --headless --mode code-review --diff A..B``: the static part, and with
    ``--llm`` the model part through an agent in read-only mode: JSON, SARIF and Markdown."""
    from aiagent.engines.review import DiffSpec, PipelineError, ReviewInputError, ReviewRequest
    from aiagent.engines.review import review as run_review
    from aiagent.engines.review.render import RENDERERS
    from aiagent.engines.security.defaults import load_defaults

    if not spec.range:
        raise TaskFailure("code-review needs range=A..B on the repository's line")
    settings = untrusted_settings(root, {"approval_mode": "read-only"})
    request = ReviewRequest(root, DiffSpec(range=spec.range), security=load_defaults(settings))
    built: list[Any] = []
    try:
        report = run_review(request, _review_agent(model, settings, spec, built))
    except (ReviewInputError, PipelineError) as exc:
        raise TaskFailure(f"code-review: {exc}") from None
    finally:
        for started in built:
            started.close()
    outputs = tuple(_write(out / f"code-review.{ext}", RENDERERS[fmt](report, ""))
                    for fmt, ext in (("json", "json"), ("sarif", "sarif"), ("markdown", "md")))
    notes = tuple(report.notes) + tuple(f"model: {e}" for e in report.errors)
    return JobOutcome(_counts([f.severity for f in report.findings]), outputs,
                      model.cost if model else 0.0, notes)


def _review_agent(model: ModelUse | None, settings: Any, spec: RepoSpec, built: list[Any]) -> Any:
    """The review's ``make_agent``: the agent built the one way (app.py), or None."""
    if model is None:
        return None

    def make_agent() -> Any:
        from aiagent.agent.core.session import SessionRequest
        from aiagent.contracts.providers import AuthError, ProviderError

        try:
            started = model.app(settings).start(SessionRequest(), title=f"batch code review of {spec.range}")
        except (AuthError, ProviderError) as exc:
            raise TaskFailure(f"model: {exc}") from None
        built.append(started)
        return started.agent

    return make_agent


JOBS: dict[str, Callable[[Path, Path, RepoSpec, Any], JobOutcome]] = {
    "security-audit": security_audit,
    "log-analysis": log_analysis,
    "wiki": wiki,
    "code-review": code_review,
}
HISTORY_JOBS = frozenset({"code-review"})  # need more than a depth-1 clone
