"""Terminal summary: counts by severity, attack chains by score, then the findings.

Rendered with rich: coloured by severity on a terminal (plain text otherwise), long titles
and paths wrapped inside their column, never cut.
"""

from __future__ import annotations

from io import StringIO
from typing import TYPE_CHECKING

from aiagent.engines.security.analyzers.summary import summary_lines
from aiagent.engines.security.finding import Severity, chain_sort_key
from aiagent.engines.security.report.common import (
    ReportOptions,
    location_text,
    severity_counts,
    skipped_summary,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from aiagent.engines.security.engine import AuditResult

MAX_ROWS = 60
STYLES = {
    Severity.CRITICAL: "bold red", Severity.HIGH: "red", Severity.MEDIUM: "yellow",
    Severity.LOW: "cyan", Severity.INFO: "dim",
}


def _console(opts: ReportOptions) -> Console:
    from rich.console import Console

    return Console(file=StringIO(), width=max(opts.width, 60), force_terminal=opts.color,
                   no_color=not opts.color, color_system="standard" if opts.color else None,
                   highlight=False, emoji=False, markup=False)


def _table(*headers: str, wrap: tuple[str, ...] = ()) -> Table:
    """Columns named in ``wrap`` wrap (and fold long words); the others keep one line."""
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for header in headers:
        if header in wrap:
            table.add_column(header, overflow="fold", ratio=1 if header == wrap[-1] else None)
        else:
            table.add_column(header, no_wrap=True)
    return table


def _sev(severity: Severity) -> tuple[str, str]:
    return severity.value, STYLES[severity]


def _counts(result: AuditResult) -> Table:
    from rich.text import Text

    table = _table("SEVERITY", "COUNT")
    for sev, n in severity_counts(result.findings).items():
        table.add_row(Text(*_sev(sev)), str(n))
    table.add_row(Text("total", "bold"), str(len(result.findings)))
    return table


def _chains(result: AuditResult) -> Table:
    from rich.text import Text

    table = _table("SCORE", "SEVERITY", "ENTRY", "ATTACK CHAIN", wrap=("ENTRY", "ATTACK CHAIN"))
    for c in sorted(result.chains, key=chain_sort_key):
        table.add_row(f"{c.score:.1f}", Text(*_sev(c.severity)), location_text(c.steps[0]),
                      c.title)
    return table


def _findings(result: AuditResult, max_rows: int) -> tuple[Table, int]:
    from rich.text import Text

    shown = [f for f in result.findings if f.severity is not Severity.INFO][:max_rows]
    table = _table("SEVERITY", "RULE", "CONTEXT", "LOCATION", "TITLE", wrap=("LOCATION", "TITLE"))
    for f in shown:
        table.add_row(Text(*_sev(f.severity)), f.id, f.path_category, location_text(f), f.title)
    return table, len(shown)


def render(result: AuditResult, options: ReportOptions | None = None,
           max_rows: int = MAX_ROWS) -> str:
    opts = options or ReportOptions()
    console = _console(opts)
    console.print(f"Security audit of {result.root.name or result.root}", style="bold")
    console.print(_counts(result))
    if result.chains:
        console.print("Attack chains (highest score first)", style="bold")
        console.print(_chains(result))
    table, shown = _findings(result, max_rows)
    if shown:
        console.print("Findings", style="bold")
        console.print(table)
    hidden = len(result.findings) - shown
    if hidden:
        console.print(f"... and {hidden} more (info or beyond the first {max_rows});"
                      " use --output json or markdown for all")
    for line in summary_lines(result.llm):  # the LLM phase, when it ran (security/analyzers)
        console.print(line, markup=False, highlight=False)
    console.print(f"Scanned {result.files_scanned} files, {result.lines_scanned} lines in "
                  f"{result.duration_s:.2f}s; skipped: {skipped_summary(result)}.")
    for warning in result.warnings[:5]:
        console.print(f"warning: {warning}", style="yellow")
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
