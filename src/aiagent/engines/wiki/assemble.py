"""Stage 5: the page tree of spec Appendix D from the code model (and, later, the model
passes' summaries: :class:`Context.summaries` is where they slot in; empty in the static wiki).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.diagrams import Graph, fenced
from aiagent.engines.wiki.drilldown import clustered, clusters_table, drilldown_pages, graph_of
from aiagent.engines.wiki.extract import first_paragraph
from aiagent.engines.wiki.model import CodeModel
from aiagent.engines.wiki.pages import Links, Page, cell, code, page_link, table
from aiagent.engines.wiki.steering import Steering
from aiagent.engines.wiki.steeringpages import missing_pages

if TYPE_CHECKING:
    from aiagent.engines.wiki.drilldown import Clustered


@dataclass(slots=True)
class Context:
    model: CodeModel
    modules: list[Module]
    links: Links
    steering: Steering
    audit: Any = None  # aiagent.engines.security.engine.AuditResult, or None when the audit failed
    audit_error: str = ""
    diagram_format: str = "mermaid"
    summaries: dict[str, str] = field(default_factory=dict)  # module id -> summary (model passes)
    sections: dict[str, list[str]] = field(default_factory=dict)  # page path -> Markdown added at its end
    extra_pages: list[Page] = field(default_factory=list)  # pages only the model passes write
    page_note: str = "no model was configured for this run"  # why a steering page is a placeholder

    def module_of(self) -> dict[str, Module]:
        return {rel: m for m in self.modules for rel in m.files}


def assemble(ctx: Context) -> list[Page]:
    from aiagent.engines.wiki.chapters import code_structure, glossary, security, testing

    pages = [overview(ctx), architecture(ctx), dependencies(ctx), modules_index(ctx)]
    pages += drilldown_pages([architecture_clusters(ctx), dependency_clusters(ctx)], ctx.modules,
                             ctx.diagram_format)
    pages += [module_page(ctx, m) for m in ctx.modules]
    from aiagent.engines.wiki.suggestionpages import suggestion_pages

    pages += code_structure(ctx) + testing(ctx) + security(ctx) + suggestion_pages(ctx) + [glossary(ctx)]
    pages += ctx.extra_pages + missing_pages(ctx.steering, {p.path for p in ctx.extra_pages}, ctx.page_note)
    return [with_sections(ctx, p) for p in pages]


def with_sections(ctx: Context, page: Page) -> Page:
    added = ctx.sections.get(page.path)
    return Page(page.path, page.title, page.body + "\n" + "\n\n".join(added) + "\n") if added else page


def title(ctx: Context) -> str:
    return ctx.steering.title or ctx.model.root.name


def overview(ctx: Context) -> Page:
    path, model = "index.md", ctx.model
    langs = Counter(f.language for f in model.files.values())
    body = [f"# {cell(title(ctx))}", "",
            f"{len(model.files)} source files, {model.total_lines} lines "
            f"({', '.join(f'{n} {lang}' for lang, n in langs.most_common())}), "
            f"{len(ctx.modules)} modules.", ""]
    if ctx.steering.audience:
        body += [f"Written for: {cell(ctx.steering.audience)}.", ""]
    body += [f"- [Architecture]({page_link(path, 'architecture/overview.md')})",
             f"- [Dependencies]({page_link(path, 'architecture/dependencies.md')})",
             f"- [Modules]({page_link(path, 'modules/index.md')})",
             f"- [Code structure]({page_link(path, 'code-structure/overview.md')})",
             f"- [Testing]({page_link(path, 'testing/coverage-report.md')})",
             f"- [Security]({page_link(path, 'security/overview.md')})",
             f"- [Glossary]({page_link(path, 'glossary.md')})", "",
             "## Entry points", "", _entries(ctx, path), "",
             "## Architecture", "", fenced(architecture_graph(ctx), ctx.diagram_format)]
    if ctx.steering.notes:
        body += ["", "## Notes", ""] + [f"- {cell(n)}" for n in ctx.steering.notes]
    if ctx.steering.pages:
        from aiagent.engines.wiki.steeringpages import page_paths

        body += ["", "## Guides", ""] + [f"- [{cell(p.title)}]({page_link(path, dst)})"
                                         for p, dst in page_paths(ctx.steering)]
    return Page(path, "Overview", "\n".join(body) + "\n")


def _entries(ctx: Context, page: str) -> str:
    rows = [[f"[{cell(rel)}]({ctx.links.source(page, rel)})", _marked(what)]
            for rel, what in ctx.model.entry_points]
    return table(["where", "what"], rows)


def _marked(text: str) -> str:
    """``a `b` c``: the back-quoted parts as code spans, the rest as inert text."""
    def plain(part: str) -> str:
        lead, trail = " " * part[:1].isspace(), " " * part[-1:].isspace()
        return lead + cell(part) + trail if part.strip() else part[:1]

    return "".join(code(part) if i % 2 else plain(part) for i, part in enumerate(text.split("`")))


def architecture_clusters(ctx: Context) -> Clustered:
    """The modules (tests left out), clustered by folder when too many for one diagram."""

    return clustered([m for m in ctx.modules if not m.is_test])


def dependency_clusters(ctx: Context) -> Clustered:

    return clustered(ctx.modules)


def architecture_graph(ctx: Context) -> Graph:

    return graph_of(architecture_clusters(ctx), "architecture", groups=True)


def architecture(ctx: Context) -> Page:

    path = "architecture/overview.md"
    rows = [[f"[{cell(m.title)}]({page_link(path, f'modules/{m.id}.md')})", str(len(m.files)),
             str(sum(m.deps_out.values())), str(sum(m.deps_in.values()))]
            for m in ctx.modules if not m.is_test]
    body = ["# Architecture", "", "Modules (test modules left out) and the imports between them; "
            "an arrow points from the importing module to the imported one.", "",
            fenced(architecture_graph(ctx), ctx.diagram_format), "",
            *_drill(clusters_table(architecture_clusters(ctx), path)),
            table(["module", "files", "imports out", "imports in"], rows), "",
            "## Entry points", "", _entries(ctx, path)]
    return Page(path, "Architecture", "\n".join(body) + "\n")


def dependencies(ctx: Context) -> Page:

    path = "architecture/dependencies.md"
    clusters = dependency_clusters(ctx)
    graph = graph_of(clusters, "dependencies")
    external: Counter[str] = Counter()
    local = _local_tops(ctx)
    for fm in ctx.model.files.values():
        tops = {_top(name, fm.language) for name in fm.imports}
        external.update(t for t in tops if t and t not in local)
    rows = [[code(name), str(n)] for name, n in external.most_common(40) if name]
    body = ["# Dependencies", "", "## Between modules", "", fenced(graph, ctx.diagram_format), "",
            *_drill(clusters_table(clusters, path)), "## External imports (most used)", "", table(["import", "files"], rows)]
    return Page(path, "Dependencies", "\n".join(body) + "\n")


def _drill(text: str) -> list[str]:
    return [text, ""] if text else []


def _local_tops(ctx: Context) -> set[str]:
    tops = {rel.split("/", 1)[0].rsplit(".", 1)[0] for rel in ctx.model.files}
    return tops | {ctx.model.root.name}


def _top(name: str, language: str) -> str:
    if name.startswith("."):
        return ""
    if language == "python":
        return name.split(".")[0]
    if name.startswith("@"):
        return "/".join(name.split("/")[:2])
    return name.split("/")[0] if language in ("javascript", "typescript", "tsx") else name


def modules_index(ctx: Context) -> Page:
    path = "modules/index.md"
    rows = [[f"[{cell(m.title)}]({page_link(path, f'modules/{m.id}.md')})", str(len(m.files)),
             "yes" if m.is_test else "", cell(purpose(ctx, m))] for m in ctx.modules]
    body = ["# Modules", "", table(["module", "files", "tests", "purpose"], rows)]
    return Page(path, "Modules", "\n".join(body) + "\n")


def purpose(ctx: Context, m: Module) -> str:
    if m.id in ctx.summaries:
        return ctx.summaries[m.id]
    for rel in m.files:
        if posixpath.basename(rel) in ("__init__.py", "index.js", "index.ts", "doc.go") and ctx.model.files[rel].doc:
            return ctx.model.files[rel].doc
    readme = _readme(ctx, m)
    if readme:
        return readme
    docs = [ctx.model.files[r].doc for r in m.files if ctx.model.files[r].doc]
    return docs[0] if docs else ""


def _readme(ctx: Context, m: Module) -> str:

    folder = "" if m.name == "." else m.name + "/"
    for doc in ctx.model.docs:
        if doc.rel.lower() in (f"{folder}readme.md".lower(), f"{folder}readme".lower()):
            text = doc.path.read_text(encoding="utf-8", errors="replace")
            paras = [p for p in text.split("\n\n") if p.strip() and not p.lstrip().startswith(("#", "[!", "<", "!["))]
            return first_paragraph(paras[0]) if paras else ""
    return ""


def module_page(ctx: Context, m: Module) -> Page:
    from aiagent.engines.wiki.modulepage import module_body

    return Page(f"modules/{m.id}.md", m.title, module_body(ctx, m))
