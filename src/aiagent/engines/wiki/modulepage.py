"""One module's page: purpose, files, public API (signatures, file:line links), dependencies."""

from __future__ import annotations

from aiagent.engines.wiki.assemble import Context, purpose
from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.diagrams import Graph, fenced
from aiagent.engines.wiki.pages import cell, code, page_link, table

MAX_API_ROWS = 300


def module_body(ctx: Context, m: Module) -> str:
    path = f"modules/{m.id}.md"
    body = [f"# {cell(m.title)}", "", cell(purpose(ctx, m)) or "_No docstring or README describes this module._", "",
            "## Files", "", _files(ctx, m, path), "", "## Public API", "", _api(ctx, m, path), "",
            "## Dependencies", "", _deps(ctx, m, path)]
    if m.deps_in or m.deps_out:
        body += ["", fenced(_neighbours(ctx, m), ctx.diagram_format)]
    return "\n".join(body) + "\n"


def _files(ctx: Context, m: Module, path: str) -> str:
    rows = []
    for rel in m.files:
        fm = ctx.model.files[rel]
        rows.append([f"[{cell(rel)}]({ctx.links.source(path, rel)})", str(fm.lines), cell(fm.doc)])
    return table(["file", "lines", "docstring"], rows)


def _api(ctx: Context, m: Module, path: str) -> str:
    called = _callers(ctx)
    rows = []
    for rel in m.files:
        for sym in ctx.model.files[rel].symbols:
            if not sym.public:
                continue
            link = f"[{cell(rel)}:{sym.line}]({ctx.links.source(path, rel, sym.line)})"
            rows.append([sym.kind, code(sym.qualname), code(sym.signature), link,
                         str(called.get(f"{rel}::{sym.qualname}", 0)), cell(sym.doc)])
    shown = table(["kind", "name", "signature", "defined at", "callers", "summary"], rows[:MAX_API_ROWS])
    if len(rows) > MAX_API_ROWS:
        shown += f"\n\n_{len(rows) - MAX_API_ROWS} more public symbols are not listed._"
    return shown


def _callers(ctx: Context) -> dict[str, int]:
    counts: dict[str, int] = {}
    for edge in ctx.model.calls:
        counts[edge.callee] = counts.get(edge.callee, 0) + 1
    return counts


def _deps(ctx: Context, m: Module, path: str) -> str:
    by_id = {x.id: x for x in ctx.modules}

    def links(counter: dict[str, int]) -> str:
        items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        return ", ".join(f"[{cell(by_id[k].title)}]({page_link(path, f'modules/{k}.md')}) ({n})"
                         for k, n in items) or "none"

    return f"- Depends on: {links(m.deps_out)}\n- Used by: {links(m.deps_in)}"


def _neighbours(ctx: Context, m: Module) -> Graph:
    by_id = {x.id: x for x in ctx.modules}
    graph = Graph(m.title)
    graph.add_node(m.id, m.title)
    for k in list(m.deps_out) + list(m.deps_in):
        graph.add_node(k, by_id[k].title)
    for k, n in m.deps_out.items():
        graph.add_edge(m.id, k, n)
    for k, n in m.deps_in.items():
        graph.add_edge(k, m.id, n)
    return graph
