"""The model's checked answers as wiki content: a summary and a deep-dive section on module
pages, the architecture narrative on the overview, and the pages of Appendix D that only a
model can write (data flow, design patterns, suggestions).

All prose goes through :func:`aiagent.engines.wiki.truth.render` (inert Markdown, known names only,
links the wiki builds); diagrams through :mod:`aiagent.engines.wiki.modeldiagrams` (written again
from their parsed form). Sizes are capped by the schemas.
"""

from __future__ import annotations

from typing import Any

from aiagent.engines.wiki.assemble import Context
from aiagent.engines.wiki.modeldiagrams import DiagramError, fenced_text, parse
from aiagent.engines.wiki.pages import Page, cell, code, table
from aiagent.engines.wiki.passes import Analysis
from aiagent.engines.wiki.steeringpages import page_paths, written
from aiagent.engines.wiki.truth import NAME, Names, render

AUTH_PAGE = "security/auth-review.md"
WRITTEN = "_Written by a model from a briefing of the code; code names checked against the code._"


def apply(ctx: Context, analysis: Analysis, names: Names) -> None:
    """Fill ``ctx.summaries``, ``ctx.sections`` and ``ctx.extra_pages``."""
    for mid, value in analysis.modules.items():
        ctx.summaries[mid] = " ".join(str(value.get("purpose", "")).replace("`", "").split())
        path = f"modules/{mid}.md"
        ctx.sections.setdefault(path, []).append(_module(ctx, names, path, value, analysis.deep.get(mid)))
    for mid, value in analysis.deep.items():
        if mid not in analysis.modules:
            path = f"modules/{mid}.md"
            ctx.sections.setdefault(path, []).append(_deep(ctx, names, path, value))
    if analysis.synthesis:
        _synthesis(ctx, names, analysis.synthesis)
    _steering_pages(ctx, names, analysis)
    answer = analysis.auth.get("answer") if isinstance(analysis.auth, dict) else None
    if isinstance(answer, dict):
        ctx.sections.setdefault(AUTH_PAGE, []).append(_auth(ctx, names, answer))


def _steering_pages(ctx: Context, names: Names, analysis: Analysis) -> None:

    ctx.page_note = "the model gave no valid answer for it in this run"
    for page, path in page_paths(ctx.steering):
        stored = analysis.pages.get(path)
        value = stored.get("answer") if isinstance(stored, dict) else None
        if not isinstance(value, dict):
            continue
        body = [WRITTEN, "", _prose(ctx, names, path, value.get("body"))]
        points = _bullets(ctx, names, path, value.get("key_points"))
        body += (["", *points] if points else []) + _diagram(ctx, value.get("diagram"))
        ctx.extra_pages.append(written(page.title, path, body))


def _prose(ctx: Context, names: Names, page: str, text: Any) -> str:
    return render(names, ctx.links, page, str(text or ""))


def _bullets(ctx: Context, names: Names, page: str, items: Any) -> list[str]:
    return [f"- {line}" for item in (items or []) if (line := _prose(ctx, names, page, item).replace("\n\n", " "))]


def _diagram(ctx: Context, text: Any) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        return []
    try:
        return ["", fenced_text(parse(text), ctx.diagram_format)]
    except DiagramError:
        return []  # checked before; a stored one from an older run may not parse


def _module(ctx: Context, names: Names, path: str, value: dict[str, Any], deep: dict[str, Any] | None) -> str:
    body = ["## Summary", "", WRITTEN, "", _prose(ctx, names, path, value.get("summary"))]
    points = _bullets(ctx, names, path, value.get("key_points"))
    if points:
        body += ["", *points]
    if deep:
        body += ["", _deep(ctx, names, path, deep)]
    return "\n".join(body)


def _deep(ctx: Context, names: Names, path: str, value: dict[str, Any]) -> str:
    body = ["## Deep dive", "", _prose(ctx, names, path, value.get("walkthrough"))]
    body += _diagram(ctx, value.get("diagram"))
    pitfalls = _bullets(ctx, names, path, value.get("pitfalls"))
    if pitfalls:
        body += ["", "### Pitfalls", "", *pitfalls]
    return "\n".join(body)


def _synthesis(ctx: Context, names: Names, value: dict[str, Any]) -> None:
    ctx.sections.setdefault("index.md", []).append(
        "\n".join(["## How it fits together", "", WRITTEN, "", _prose(ctx, names, "index.md", value.get("architecture"))]))
    path = "architecture/data-flow.md"
    flow = ["# Data flow", "", WRITTEN, "", _prose(ctx, names, path, value.get("data_flow"))]
    flow += _diagram(ctx, value.get("data_flow_diagram"))
    ctx.extra_pages.append(Page(path, "Data flow", "\n".join(flow) + "\n"))
    path = "code-structure/design-patterns.md"
    patterns = [[cell(str(p.get("pattern", ""))), _prose(ctx, names, path, p.get("where")).replace("\n\n", " ")]
                for p in value.get("design_patterns") or []]
    abstractions = [[_name(ctx, names, path, str(a.get("name", ""))),
                     _prose(ctx, names, path, a.get("why")).replace("\n\n", " ")]
                    for a in value.get("key_abstractions") or []]
    body = ["# Design patterns", "", WRITTEN, "", table(["pattern", "where"], patterns), "",
            "## Key abstractions", "", table(["name", "why it matters"], abstractions)]
    ctx.extra_pages.append(Page(path, "Design patterns", "\n".join(body) + "\n"))
    path = "suggestions/improvements.md"
    tips = _bullets(ctx, names, path, value.get("suggestions")) or ["_None._"]
    ctx.extra_pages.append(Page(path, "Improvements", "\n".join(["# Improvements", "", WRITTEN, "", *tips]) + "\n"))


def _auth(ctx: Context, names: Names, value: dict[str, Any]) -> str:
    path = AUTH_PAGE
    body = ["## The model's review", "", WRITTEN, "", _prose(ctx, names, path, value.get("summary"))]
    rows = [[cell(str(c.get("severity", ""))), cell(str(c.get("title", ""))),
             _prose(ctx, names, path, c.get("detail")).replace("\n\n", " ")]
            for c in value.get("concerns") or [] if isinstance(c, dict)]
    if rows:
        body += ["", "### Concerns", "", table(["severity", "concern", "detail"], rows)]
    tips = _bullets(ctx, names, path, value.get("recommendations"))
    if tips:
        body += ["", "### Recommendations", "", *tips]
    return "\n".join(body)


def _name(ctx: Context, names: Names, page: str, name: str) -> str:
    name = name.strip("`").strip()
    if NAME.fullmatch(name):
        return render(names, ctx.links, page, f"`{name}`")
    return code(name) if name else ""
