"""Plain-text summary for a terminal or a log: counts by severity, then the findings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiagent.security.analyzers.summary import summary_lines
from aiagent.security.finding import Severity
from aiagent.security.report.common import (
    location_text,
    severity_counts,
    skipped_summary,
)

if TYPE_CHECKING:
    from aiagent.security.engine import AuditResult

MAX_ROWS = 60
TITLE_WIDTH = 52


def _truncate(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _grid(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def render(result: AuditResult, max_rows: int = MAX_ROWS) -> str:
    counts = severity_counts(result.findings)
    out = [f"Security audit of {result.root.name or result.root}", ""]
    out += _grid(["SEVERITY", "COUNT"], [[s.value, str(n)] for s, n in counts.items()])
    out.append(f"{'total':<8}  {len(result.findings)}")
    if result.chains:
        out += ["", "Attack chains:"]
        out += [f"  [{c.severity.value}] {c.title} (entry {location_text(c.steps[0])})"
                for c in result.chains]
    shown = [f for f in result.findings if f.severity is not Severity.INFO][:max_rows]
    if shown:
        rows = [[f.severity.value, f.id, _truncate(location_text(f), 40),
                 _truncate(f.title, TITLE_WIDTH)] for f in shown]
        out += ["", *_grid(["SEVERITY", "RULE", "LOCATION", "TITLE"], rows)]
    hidden = len(result.findings) - len(shown)
    if hidden:
        out.append(f"... and {hidden} more (info or beyond the first {max_rows});"
                   " use --output json or markdown for all")
    out += summary_lines(result.llm)  # the LLM phase, when it ran (security/analyzers)
    out += ["", f"Scanned {result.files_scanned} files, {result.lines_scanned} lines in "
            f"{result.duration_s:.2f}s; skipped: {skipped_summary(result)}."]
    out += [f"warning: {w}" for w in result.warnings[:5]]
    return "\n".join(out) + "\n"
