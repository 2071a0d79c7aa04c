"""The chapters beside the module pages: code structure, testing, security, glossary."""

from __future__ import annotations

from collections import Counter

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.pages import Page, cell, code, page_link, table
from aiagent.engines.wiki.securitypages import security_pages
from aiagent.engines.wiki.xcodepage import PATH, xcode_pages

MAX_ROWS = 50


def code_structure(ctx: Context) -> list[Page]:
    model = ctx.model
    path = "code-structure/overview.md"
    langs = Counter(f.language for f in model.files.values())
    lines = Counter[str]()
    for f in model.files.values():
        lines[f.language] += f.lines
    kinds = Counter(s.kind for s in model.symbols())
    largest = sorted(model.files.values(), key=lambda f: -f.lines)[:15]
    body = ["# Code structure", "",
            table(["language", "files", "lines"], [[lang, str(n), str(lines[lang])] for lang, n in langs.most_common()]),
            "", f"{kinds['class']} classes, {kinds['function']} functions, {kinds['method']} methods.", "",
            "## Largest files", "",
            table(["file", "lines"], [[f"[{cell(f.rel)}]({ctx.links.source(path, f.rel)})", str(f.lines)] for f in largest]),
            "", "## Build files", "",
            table(["file"], [[f"[{cell(b.rel)}]({ctx.links.source(path, b.rel)})"] for b in model.build]),
            "", "## Configuration files", "",
            table(["file", "kind"], [[f"[{cell(c.rel)}]({ctx.links.source(path, c.rel)})", c.language]
                                     for c in model.config[:MAX_ROWS]])]

    xcode = xcode_pages(model.root, ctx.diagram_format, (ctx.links.output,), ctx.steering)
    if xcode:
        body += ["", "## Xcode project", "", f"Targets, schemes and build phases: [Xcode project]"
                 f"({page_link(path, PATH)})."]
    return [Page(path, "Code structure", "\n".join(body) + "\n"), _key_abstractions(ctx), *xcode]


def _key_abstractions(ctx: Context) -> Page:
    path = "code-structure/key-abstractions.md"
    calls = Counter(e.callee for e in ctx.model.calls)
    index = {f"{s.rel}::{s.qualname}": s for s in ctx.model.symbols()}
    rows = [[code(index[k].qualname), f"[{cell(index[k].rel)}:{index[k].line}]"
             f"({ctx.links.source(path, index[k].rel, index[k].line)})", str(n), cell(index[k].doc)]
            for k, n in calls.most_common(MAX_ROWS) if k in index]
    body = ["# Key abstractions", "", "The symbols called from the most places (calls resolved "
            "through imports; dynamic calls are not counted).", "",
            table(["name", "defined at", "call sites", "summary"], rows)]
    return Page(path, "Key abstractions", "\n".join(body) + "\n")


def testing(ctx: Context) -> list[Page]:
    path = "testing/coverage-report.md"
    tests = [f for f in ctx.model.files.values() if f.is_test]
    rows = [[f"[{cell(f.rel)}]({ctx.links.source(path, f.rel)})",
             str(sum(1 for s in f.symbols if s.kind != "class" and s.name.lower().startswith("test")))]
            for f in tests]
    body = ["# Tests", "", f"{len(tests)} test files. This is a static inventory: no test was run.",
            "", table(["file", "test functions"], rows)]
    tested = {t for f in tests for t in f.resolved}
    gaps_path = "testing/testing-gaps.md"
    gap_rows = [[f"[{cell(m.title)}]({page_link(gaps_path, f'modules/{m.id}.md')})", str(len(m.files))]
                for m in ctx.modules if not m.is_test and not tested.intersection(m.files)]
    gaps = ["# Testing gaps", "", "Modules no test file imports directly.", "",
            table(["module", "files"], gap_rows)]
    return [Page(path, "Tests", "\n".join(body) + "\n"), Page(gaps_path, "Testing gaps", "\n".join(gaps) + "\n")]


def glossary(ctx: Context) -> Page:
    path = "glossary.md"
    syms = sorted((s for s in ctx.model.symbols() if s.kind == "class" and s.public and s.doc),
                  key=lambda s: s.name.lower())
    rows = [[code(s.name), f"[{cell(s.rel)}:{s.line}]({ctx.links.source(path, s.rel, s.line)})", cell(s.doc)]
            for s in syms]
    body = ["# Glossary", "", "The project's documented public types.", "",
            table(["term", "defined at", "meaning"], rows)]
    return Page(path, "Glossary", "\n".join(body) + "\n")


def security(ctx: Context) -> list[Page]:

    return security_pages(ctx)
