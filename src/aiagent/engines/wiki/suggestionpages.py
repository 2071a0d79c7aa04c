"""Security and performance suggestions beside ``suggestions/improvements.md`` (the model's):
both from what the static wiki knows — the audit's worst findings per module, and the code
model's hot spots (the most-called functions, the longest functions, the largest files)."""

from __future__ import annotations

from collections import Counter

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.pages import Page, cell, code, page_link, table

TOP = 15


def suggestion_pages(ctx: Context) -> list[Page]:
    return [security_suggestions(ctx), performance_suggestions(ctx)]


def security_suggestions(ctx: Context) -> Page:
    path = "suggestions/security.md"
    body = ["# Security suggestions", ""]
    if ctx.audit is None:
        body.append("_The security audit did not run, so there is nothing to suggest here._")
        return Page(path, "Security suggestions", "\n".join(body) + "\n")
    owner = ctx.module_of()
    worst = Counter(owner[f.location.file].title for f in ctx.audit.findings
                    if f.severity.value in ("critical", "high") and f.location.file in owner)
    rows = [[cell(area), str(n)] for area, n in worst.most_common(TOP)]
    body += ["Start with the modules that hold the most critical and high findings; each fix is "
             f"listed in [Recommendations]({page_link(path, 'security/recommendations.md')}).", "",
             table(["module", "critical and high findings"], rows)]
    if ctx.audit.chains:
        body += ["", f"Break the {len(ctx.audit.chains)} [attack chains]"
                     f"({page_link(path, 'security/attack-chains.md')}) first: fixing one step breaks the chain."]
    return Page(path, "Security suggestions", "\n".join(body) + "\n")


def performance_suggestions(ctx: Context) -> Page:
    path = "suggestions/performance.md"
    model = ctx.model
    called = Counter(edge.callee for edge in model.calls)
    symbols = {f"{s.rel}::{s.qualname}": s for s in model.symbols()}
    hot = [[code(symbols[k].qualname) if k in symbols else code(str(k)), str(n),
            _at(ctx, path, symbols.get(k))] for k, n in called.most_common(TOP)]
    longest = sorted((s for s in model.symbols() if s.kind != "class"), key=lambda s: s.line - s.end_line)[:TOP]
    long_rows = [[code(s.qualname), str(s.end_line - s.line + 1), _at(ctx, path, s)] for s in longest]
    body = ["# Performance suggestions", "", "Where time is most likely spent or code is hardest to "
            "speed up, from the code model (no profile was run): measure these first.", "",
            "## Most-called functions", "", table(["function", "call sites", "defined at"], hot), "",
            "## Longest functions", "", table(["function", "lines", "defined at"], long_rows)]
    return Page(path, "Performance suggestions", "\n".join(body) + "\n")


def _at(ctx: Context, path: str, sym: object) -> str:
    if sym is None:
        return ""
    rel, line = sym.rel, sym.line  # type: ignore[attr-defined]
    return f"[{cell(rel)}:{line}]({ctx.links.source(path, rel, line)})"
