"""Markdown report: summary, attack chains, then findings by severity."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiagent.engines.security.finding import Finding
from aiagent.engines.security.report.common import (
    SEVERITY_ORDER,
    location_text,
    severity_counts,
    skipped_summary,
)

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult
    from aiagent.engines.security.report.common import ReportOptions


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _summary(result: AuditResult) -> list[str]:
    counts = severity_counts(result.findings)
    lines = ["| Severity | Findings |", "|---|---:|"]
    lines += [f"| {s.value} | {n} |" for s, n in counts.items()]
    lines.append(f"| **total** | **{len(result.findings)}** |")
    lines += ["", f"Scanned {result.files_scanned} files ({result.lines_scanned} lines); "
              f"skipped: {skipped_summary(result)}."]
    return lines


def _chains(result: AuditResult) -> list[str]:
    if not result.chains:
        return []
    lines = ["", "## Attack chains", ""]
    for c in result.chains:
        lines.append(f"### {c.title} ({c.severity.value}, score {c.score})")
        lines.append("")
        for i, step in enumerate(c.steps, 1):
            lines.append(f"{i}. `{step.id}` {step.title} — `{location_text(step)}`"
                         + (f" ({step.path_category})" if step.path_category != "source" else ""))
        lines += ["", f"Impact: {c.impact}", ""]
    return lines


def _finding(f: Finding) -> list[str]:
    meta = " · ".join(x for x in (f.path_category, f.cwe, f.owasp and f"OWASP {f.owasp}",
                                  f"confidence {f.confidence.value}",
                                  f.skill_source and f"skill {f.skill_source}") if x)
    lines = [f"#### `{f.id}` {f.title}", "", f"`{location_text(f)}` — {meta}", ""]
    if f.description:
        lines += [f.description, ""]
    if f.evidence:
        lines += ["```", f.evidence, "```", ""]
    if f.remediation:
        lines += [f"**Fix:** {f.remediation}", ""]
    return lines


def render(result: AuditResult, options: ReportOptions | None = None) -> str:
    del options  # nothing to choose in this format
    lines = ["# Security audit", "", *_summary(result), *_chains(result), "", "## Findings"]
    if not result.findings:
        lines += ["", "No findings."]
    for sev in SEVERITY_ORDER:
        group = [f for f in result.findings if f.severity is sev]
        if group:
            lines += ["", f"### {sev.value.capitalize()} ({len(group)})", ""]
            lines += [line for f in group for line in _finding(f)]
    return "\n".join(lines).rstrip() + "\n"
