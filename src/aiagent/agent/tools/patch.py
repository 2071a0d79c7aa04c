"""The ``*** Begin Patch`` format used by ``apply_patch``: parsing and applying hunks.

Grammar (one patch, any number of file operations)::

    *** Begin Patch
    *** Add File: <path>          followed by lines starting with "+"
    *** Delete File: <path>
    *** Update File: <path>
    *** Move to: <new path>       optional, right after Update File
    @@ <context line>             optional; narrows where the next change applies
     <unchanged line>  -<removed line>  +<added line>
    *** End of File               optional; the change must touch the end of the file
    *** End Patch

Headers are strict: ``*** Add File:``, ``*** Delete File:``, ``*** Update File:`` and
``*** Move to:`` count only at the very start of a line (``Move to`` only right after
``Update File``). A header-like line with leading whitespace, or any other line starting
with ``***`` where a header may stand, is an error naming the line, so that whoever reads a
patch (the approval policy through :func:`patch_paths`, the tool applying it) sees the same
files.

This module does no I/O: :func:`parse_patch` turns text into hunks and
:func:`apply_chunks` computes a file's new text from its old text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF_MARK = "*** End of File"
HEADER_LIKE = re.compile(
    r"\s+\*\*\*\s*(Add File|Delete File|Update File|Move to|Begin Patch|End Patch|End of File)\b",
    re.IGNORECASE,
)


class PatchError(ValueError):
    """The patch text is malformed or does not fit the file it targets."""


@dataclass(slots=True)
class Chunk:
    context: str | None = None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    end_of_file: bool = False


@dataclass(slots=True)
class Hunk:
    kind: str  # "add" | "delete" | "update"
    path: str
    contents: str = ""
    move_to: str | None = None
    chunks: list[Chunk] = field(default_factory=list)


def patch_paths(text: str) -> list[str]:
    """Every path the patch touches (``Move to`` targets included), in order; the same strict
    parser as :func:`parse_patch`, so it raises :class:`PatchError` on the same patches."""
    paths: list[str] = []
    for hunk in parse_patch(text):
        paths.append(hunk.path)
        if hunk.move_to is not None:
            paths.append(hunk.move_to)
    return paths


def _split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only (a form feed or U+2028 inside a line stays in it)."""
    return [line.removesuffix("\r") for line in text.strip().split("\n")] if text.strip() else []


def parse_patch(text: str) -> list[Hunk]:
    lines = _strip_heredoc(_split_lines(text))
    _check_boundaries(lines)
    body = lines[1:-1]
    hunks: list[Hunk] = []
    index, number = 0, 2
    while index < len(body):
        hunk, used = _parse_hunk(body[index:], number)
        hunks.append(hunk)
        index += used
        number += used
    return hunks


def _strip_heredoc(lines: list[str]) -> list[str]:
    """Accept a patch wrapped in ``<<'EOF'`` ... ``EOF`` as some models send it."""
    if (
        len(lines) >= 4
        and lines[0].strip() in ("<<EOF", "<<'EOF'", '<<"EOF"')
        and lines[-1].strip().endswith("EOF")
        and lines[1].strip() == BEGIN
    ):
        return lines[1:-1]
    return lines


def _check_boundaries(lines: list[str]) -> None:
    first = lines[0].strip() if lines else None
    last = lines[-1].strip() if lines else None
    if first != BEGIN:
        raise PatchError("invalid patch: The first line of the patch must be '*** Begin Patch'")
    if last != END or len(lines) < 2:
        raise PatchError("invalid patch: The last line of the patch must be '*** End Patch'")


def _parse_hunk(lines: list[str], number: int) -> tuple[Hunk, int]:
    head = lines[0].rstrip()
    _refuse_header_like(head, number)
    if head.startswith(ADD):
        added = []
        for line in lines[1:]:
            if not line.startswith("+"):
                break
            added.append(line[1:] + "\n")
        return Hunk("add", _path(head, ADD, number), contents="".join(added)), 1 + len(added)
    if head.startswith(DELETE):
        return Hunk("delete", _path(head, DELETE, number)), 1
    if head.startswith(UPDATE):
        return _parse_update(_path(head, UPDATE, number), lines, number)
    raise PatchError(
        f"invalid hunk at line {number}, '{head}' is not a valid hunk header. Valid hunk "
        "headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
    )


def _path(head: str, prefix: str, number: int) -> str:
    path = head[len(prefix) :]
    if not path.strip():
        raise PatchError(f"invalid hunk at line {number}, '{head}' names no path")
    return path


def _refuse_header_like(line: str, number: int) -> None:
    """A header must start its line: ' *** Add File: x' is neither a header nor content."""
    if HEADER_LIKE.match(line):
        raise PatchError(
            f"invalid patch at line {number}, '{line}' looks like a header but does not start "
            "at the beginning of the line"
        )


def _parse_update(path: str, lines: list[str], number: int) -> tuple[Hunk, int]:
    hunk = Hunk("update", path)
    used = 1
    if len(lines) > 1 and lines[1].startswith(MOVE):
        hunk.move_to = _path(lines[1].rstrip(), MOVE, number + 1)
        used += 1
    while used < len(lines):
        line = lines[used]
        _refuse_header_like(line, number + used)
        if not line.strip():
            used += 1
            continue
        if line.startswith("*"):
            break
        chunk, n = _parse_chunk(lines[used:], number + used, first=not hunk.chunks)
        hunk.chunks.append(chunk)
        used += n
    if not hunk.chunks:
        raise PatchError(f"invalid hunk at line {number}, Update file hunk for path '{path}' is empty")
    return hunk, used


def _parse_chunk(lines: list[str], number: int, *, first: bool) -> tuple[Chunk, int]:
    chunk = Chunk()
    start = 0
    if lines[0] == "@@":
        start = 1
    elif lines[0].startswith("@@ "):
        chunk.context, start = lines[0][3:], 1
    elif not first:
        raise PatchError(
            f"invalid hunk at line {number}, Expected update hunk to start with a @@ "
            f"context marker, got: '{lines[0]}'"
        )
    if start >= len(lines):
        raise PatchError(f"invalid hunk at line {number + 1}, Update hunk does not contain any lines")
    taken = 0
    for line in lines[start:]:
        _refuse_header_like(line, number + start + taken)
        if line == EOF_MARK:
            if taken == 0:
                raise PatchError(f"invalid hunk at line {number + 1}, Update hunk does not contain any lines")
            chunk.end_of_file = True
            taken += 1
            break
        if not _add_chunk_line(chunk, line):
            if taken == 0:
                raise PatchError(
                    f"invalid hunk at line {number + 1}, Unexpected line found in update hunk: "
                    f"'{line}'. Every line should start with ' ' (context line), '+' (added line), "
                    "or '-' (removed line)"
                )
            break
        taken += 1
    return chunk, start + taken


def _add_chunk_line(chunk: Chunk, line: str) -> bool:
    marker, rest = line[:1], line[1:]
    if marker == "":
        chunk.old.append("")
        chunk.new.append("")
    elif marker == " ":
        chunk.old.append(rest)
        chunk.new.append(rest)
    elif marker == "-":
        chunk.old.append(rest)
    elif marker == "+":
        chunk.new.append(rest)
    else:
        return False
    return True


# -- applying ---------------------------------------------------------------------------


def apply_chunks(old_text: str, chunks: list[Chunk], shown: str) -> str:
    """The new text of a file after applying ``chunks``; the result ends with a newline."""
    lines = old_text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    replacements = _replacements(lines, chunks, shown)
    for start, length, new in sorted(replacements, key=lambda r: r[0], reverse=True):
        lines[start : start + length] = new
    if not lines or lines[-1] != "":
        lines.append("")
    return "\n".join(lines)


def _replacements(
    lines: list[str], chunks: list[Chunk], shown: str
) -> list[tuple[int, int, list[str]]]:
    out: list[tuple[int, int, list[str]]] = []
    cursor = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = seek_sequence(lines, [chunk.context], cursor, False)
            if found is None:
                raise PatchError(f"Failed to find context '{chunk.context}' in {shown}")
            cursor = found + 1
        if not chunk.old:
            at = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
            out.append((at, 0, list(chunk.new)))
            continue
        old, new = chunk.old, chunk.new
        found = seek_sequence(lines, old, cursor, chunk.end_of_file)
        if found is None and old[-1] == "":
            old = old[:-1]
            new = new[:-1] if new and new[-1] == "" else new
            found = seek_sequence(lines, old, cursor, chunk.end_of_file)
        if found is None:
            raise PatchError(
                f"Failed to find expected lines in {shown}:\n" + "\n".join(chunk.old)
            )
        out.append((found, len(old), list(new)))
        cursor = found + len(old)
    return out


_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
    }
)


def seek_sequence(lines: list[str], pattern: list[str], start: int, eof: bool) -> int | None:
    """Index where ``pattern`` occurs in ``lines`` at or after ``start``.

    Tries an exact match first, then ignoring trailing whitespace, then ignoring
    surrounding whitespace, then also folding typographic punctuation to ASCII.
    With ``eof`` the match must end at the last line.
    """
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if eof else start
    normalizers = (
        lambda s: s,
        str.rstrip,
        str.strip,
        lambda s: s.strip().translate(_PUNCTUATION),
    )
    for norm in normalizers:
        wanted = [norm(p) for p in pattern]
        for index in range(first, len(lines) - len(pattern) + 1):
            if all(norm(lines[index + k]) == wanted[k] for k in range(len(pattern))):
                return index
    return None
