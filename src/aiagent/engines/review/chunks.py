"""The hunks the model reviews, cut into parts that fit the context budget, each hunk with
the function around it (found with tree-sitter when a grammar for the file exists)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.engines.review.hunks import FileChange, Hunk
from aiagent.infra.syntax import treesitter
from aiagent.infra.syntax.languages import classify

MAX_FUNCTION_LINES = 120
FUNCTION_WORDS = ("function", "method", "constructor", "lambda", "class")


@dataclass(frozen=True, slots=True)
class Part:
    text: str
    files: tuple[str, ...]


def build_parts(files: list[FileChange], folder: Path, budget_chars: int) -> list[Part]:
    """One text per part, each at most ``budget_chars`` (a hunk larger than that is cut)."""
    pieces: list[tuple[str, str]] = []
    for change in files:
        if change.note:
            continue
        source = _read(folder / change.path)
        tree = _tree(change.path, source)
        for hunk in change.hunks:
            piece = _piece(change, hunk, source, tree)
            pieces.append((change.path, piece[:budget_chars]))
    return _pack(pieces, budget_chars)


def _pack(pieces: list[tuple[str, str]], budget: int) -> list[Part]:
    parts: list[Part] = []
    text: list[str] = []
    names: list[str] = []
    size = 0
    for name, piece in pieces:
        if text and size + len(piece) > budget:
            parts.append(Part("\n".join(text), tuple(dict.fromkeys(names))))
            text, names, size = [], [], 0
        text.append(piece)
        names.append(name)
        size += len(piece) + 1
    if text:
        parts.append(Part("\n".join(text), tuple(dict.fromkeys(names))))
    return parts


def _piece(change: FileChange, hunk: Hunk, source: bytes, tree: Any) -> str:
    head = f"### {change.path}"
    if change.status == "renamed":
        head += f" (renamed from {change.old_path})"
    elif change.status == "added":
        head += " (new file)"
    out = [head, f"@@ lines {hunk.new_start}-{hunk.new_end} @@ {hunk.section}".rstrip()]
    for kind, _, new_no, body in hunk.lines:
        number = f"{new_no:>6}" if kind != "-" else "      "
        out.append(f"{number} {kind} {body.rstrip(chr(10))}")
    function = _enclosing(tree, source, hunk)
    if function:
        out += ["", "Function around this hunk (new side):", function]
    return "\n".join(out) + "\n"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _tree(path: str, source: bytes) -> Any:

    language = classify(path)
    if not source or language not in treesitter.GRAMMARS or not treesitter.available(language):
        return None
    return treesitter.parse(language, source)


def _enclosing(tree: Any, source: bytes, hunk: Hunk) -> str:
    """The smallest function-like node holding the hunk's first changed line, numbered, when
    it reaches beyond the hunk (at most MAX_FUNCTION_LINES lines)."""
    if tree is None:
        return ""
    changed = [n for k, _, n, _ in hunk.lines if k == "+"] or [hunk.new_start]
    row = changed[0] - 1
    node, best = tree.root_node, None
    while node is not None:
        child = next((c for c in node.children
                      if c.start_point[0] <= row <= c.end_point[0]), None)
        if child is None:
            break
        if any(w in child.type for w in FUNCTION_WORDS):
            best = child
        node = child
    if best is None:
        return ""
    first, last = best.start_point[0] + 1, best.end_point[0] + 1
    if hunk.new_start <= first and last <= hunk.new_end:
        return ""
    lines = source.decode("utf-8", "replace").splitlines()[first - 1:last][:MAX_FUNCTION_LINES]
    return "\n".join(f"{first + i:>6}   {text}" for i, text in enumerate(lines))
