"""Pages and the small Markdown helpers every chapter uses (links, escaped table cells)."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Page:
    path: str  # POSIX, relative to the wiki folder, e.g. "modules/core.md"
    title: str
    body: str


@dataclass(frozen=True, slots=True)
class Links:
    """Where the wiki will live, so pages can link to source files as ``file#Lline``."""

    root: Path  # the project
    output: Path  # the final wiki folder

    def source(self, page: str, rel: str, line: int = 0) -> str:
        page_dir = self.output / posixpath.dirname(page)
        target = os.path.relpath(self.root / rel, page_dir).replace(os.sep, "/")
        return f"{target}#L{line}" if line else target


def page_link(src_page: str, dst_page: str) -> str:
    return posixpath.relpath(dst_page, posixpath.dirname(src_page) or ".")


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def code(text: str) -> str:
    text = " ".join(text.split())
    if "`" not in text:
        return f"`{text}`".replace("|", "\\|")
    return f"`` {text} ``".replace("|", "\\|")


def table(header: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return "_None._"
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
