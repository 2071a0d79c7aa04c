"""The extra pages a steering file asks for (``pages:`` in ``.agent/wiki.yaml``), under
``guides/``: written by the model from a bounded briefing and their instructions when a model
is configured (checked like every model page), and a placeholder that says so without one.

Titles and instructions are project text: they reach the page through :func:`cell` and the
model's prose through :func:`aiagent.engines.wiki.truth.render`.
"""

from __future__ import annotations

import re

from aiagent.engines.wiki.pages import Page, cell
from aiagent.engines.wiki.steering import ExtraPage, Steering

SECTION = "guides/"
MAX_SLUG = 60


def page_paths(steering: Steering) -> list[tuple[ExtraPage, str]]:
    """Each steering page and its path, unique, in the file's order."""
    seen: set[str] = set()
    out = []
    for i, page in enumerate(steering.pages, start=1):
        slug = re.sub(r"[^a-z0-9]+", "-", page.title.lower()).strip("-")[:MAX_SLUG].strip("-") or f"page-{i}"
        base, n = slug, 2
        while slug in seen or slug == "index":
            slug, n = f"{base}-{n}", n + 1
        seen.add(slug)
        out.append((page, f"{SECTION}{slug}.md"))
    return out


def placeholder(page: ExtraPage, path: str, why: str) -> Page:
    body = [f"# {cell(page.title)}", "",
            f"_This page is written by a model from the instructions below; {why}. "
            "Run `aiagent wiki` with a model configured to write it._", "",
            "Instructions (from `.agent/wiki.yaml`):", "", f"> {cell(page.instructions) or '(none)'}"]
    return Page(path, page.title, "\n".join(body) + "\n")


def written(title: str, path: str, parts: list[str]) -> Page:
    return Page(path, title, "\n".join([f"# {cell(title)}", "", *parts]) + "\n")


def missing_pages(steering: Steering, have: set[str], why: str) -> list[Page]:
    """Placeholders for the steering pages no model wrote."""
    return [placeholder(p, path, why) for p, path in page_paths(steering) if path not in have]


def stored_key(page: ExtraPage) -> str:
    import hashlib

    return hashlib.sha256(f"{page.title}\0{page.instructions}".encode()).hexdigest()[:16]

