"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` line per finding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiagent.engines.security.finding import Finding, Severity

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult
    from aiagent.engines.security.report.common import ReportOptions

LEVELS = {
    Severity.CRITICAL: "error", Severity.HIGH: "error", Severity.MEDIUM: "warning",
    Severity.LOW: "notice", Severity.INFO: "notice",
}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding, prefix: str = "") -> str:
    loc = f.location
    props = [f"file={_escape_prop(prefix + loc.file)}"]
    if loc.start_line:
        props.append(f"line={loc.start_line}")
        props.append(f"endLine={max(loc.end_line, loc.start_line)}")
    label = f.severity.value if f.path_category == "source" else \
        f"{f.severity.value}, {f.path_category}"
    props.append(f"title={_escape_prop(f'[{label}] {f.id}: {f.title}')}")
    message = f.description or f.title
    if f.remediation:
        message += f"\nFix: {f.remediation}"
    return f"::{LEVELS[f.severity]} {','.join(props)}::{_escape_data(message)}"


def render(result: AuditResult, options: ReportOptions | None = None) -> str:
    del options  # nothing to choose in this format
    return "".join(annotation(f, result.uri_prefix) + "\n" for f in result.findings)
