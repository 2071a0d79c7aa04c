"""Pages and the small Markdown helpers every chapter uses (links, escaped table cells)."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from aiagent.engines.wiki.sourcelinks import copy_target


@dataclass(frozen=True, slots=True)
class Page:
    path: str  # POSIX, relative to the wiki folder, e.g. "modules/core.md"
    title: str
    body: str


@dataclass(slots=True)
class Links:
    """Where the wiki will live, so pages can link to source files (see
    :mod:`aiagent.engines.wiki.sourcelinks`): the repository's web view, a copy inside the site, or
    (plain Markdown) the file in the project, each with a ``#Lline`` anchor."""

    root: Path  # the project
    output: Path  # the final wiki folder (the pages' folder)
    fmt: str = "markdown"
    web: str = ""  # the web view's base URL ending with "/", or ""
    copied: set[str] = field(default_factory=set)  # project files the site carries a copy of

    def source(self, page: str, rel: str, line: int = 0) -> str:
        anchor = f"#L{line}" if line else ""
        if self.web:
            return self.web + quote(rel, safe="/.-_~") + anchor
        if self.fmt != "markdown":
            from aiagent.engines.wiki.sourcelinks import site_link

            self.copied.add(rel)
            return site_link(self.fmt, page, rel) + anchor
        page_dir = self.output / posixpath.dirname(page)
        target = quote(os.path.relpath(self.root / rel, page_dir).replace(os.sep, "/"), safe="/.-_~")
        return target + anchor

    def copies(self) -> dict[str, Path]:
        """Site path -> project file, for every referenced file the site carries."""

        return {copy_target(self.fmt, rel): self.root / rel for rel in sorted(self.copied)
                if (self.root / rel).is_file()}


def page_link(src_page: str, dst_page: str) -> str:
    return posixpath.relpath(dst_page, posixpath.dirname(src_page) or ".")


def cell(text: str) -> str:
    """Text from the project (docstrings, names) as inert Markdown: one line, no raw HTML, no
    links or images of its own, table pipes escaped."""
    text = " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.translate(_INERT)


_INERT = str.maketrans({"|": "\\|", "[": "\\[", "]": "\\]", "!": "\\!", "`": "\\`", "*": "\\*",
                        "_": "\\_"})


def code(text: str) -> str:
    """A code span whose fence is longer than any run of backticks inside it."""
    import re

    text = " ".join(text.split()).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(header: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return "_None._"
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
