"""``--save FORMAT=PATH`` for ``--mode code-review``: write the report to files besides the
main output, so that one review (one model run) gives the SARIF for code scanning, the JSON
report, a markdown summary and the counts for CI outputs, and still posts to the PR.

The files are written before anything is posted: an API that refuses the comments loses
none of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.infra.config.settings import ConfigError

SAVE_FORMATS = ("json", "markdown", "sarif", "counts", "codequality")
# GitLab Code Quality severities for ours
CODEQUALITY_SEVERITY = {"critical": "blocker", "high": "critical", "medium": "major",
                        "low": "minor", "info": "info"}


def parse_saves(values: tuple[str, ...] | list[str] | None) -> list[tuple[str, Path]]:
    """The ``--save`` values as (format, path); a bad one is a one-line usage error."""
    out = []
    for value in values or ():
        fmt, sep, path = value.partition("=")
        if not sep or fmt not in SAVE_FORMATS or not path.strip():
            raise ConfigError(f"--save {value!r}: expected FORMAT=PATH, FORMAT one of "
                              f"{', '.join(SAVE_FORMATS)}")
        out.append((fmt, Path(path)))
    return out


def render_counts(report: Any, reason: str) -> str:
    """KEY=VALUE lines (a GitHub step's outputs, a GitLab dotenv report): the number of
    findings, one count per severity, and whether the gate failed."""
    from aiagent.engines.review.render import counts

    lines = [f"findings={len(report.findings)}"]
    lines += [f"{severity}={n}" for severity, n in counts(report.findings).items()]
    lines.append(f"gate={'failed' if reason else 'passed'}")
    return "\n".join(lines) + "\n"


def render_codequality(report: Any, reason: str = "") -> str:
    """A GitLab Code Quality report (``artifacts:reports:codequality``): a JSON list of
    issues with description, check_name, fingerprint (unique in the report), severity and
    location (path, first line)."""
    import hashlib
    import json

    seen: dict[str, int] = {}
    issues = []
    for f in report.findings:
        n = seen[f.fingerprint] = seen.get(f.fingerprint, -1) + 1
        key = f.fingerprint if n == 0 else hashlib.sha256(
            f"{f.fingerprint}:{n}".encode()).hexdigest()[:32]
        issues.append({"description": f"{f.title} ({f.category})", "check_name": f.rule_id,
                       "fingerprint": key, "severity": CODEQUALITY_SEVERITY.get(f.severity, "info"),
                       "location": {"path": f.file, "lines": {"begin": max(1, f.start_line)}}})
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


def _render(fmt: str, report: Any, reason: str) -> str:
    from aiagent.engines.review.render import RENDERERS

    if fmt == "counts":
        return render_counts(report, reason)
    if fmt == "codequality":
        return render_codequality(report, reason)
    return RENDERERS[fmt](report, reason)


def write_saves(saves: list[tuple[str, Path]], report: Any, reason: str) -> list[str]:
    """Write every ``--save`` file; the errors (one line each) for those that failed."""
    errors = []
    for fmt, path in saves:
        text = _render(fmt, report, reason)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            errors.append(f"--save {fmt}={path}: {exc.strerror or exc}")
    return errors
