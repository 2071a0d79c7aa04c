"""The diff as files and hunks (parsed by ``unidiff``), and which files are only summarised:
binary, deleted, submodules, lockfiles, vendored, generated, minified or huge."""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from aiagent.infra.syntax.languages import classify


@dataclass(frozen=True, slots=True)
class Hunk:
    new_start: int
    new_len: int
    old_start: int
    old_len: int
    section: str
    lines: tuple[tuple[str, int, int, str], ...]  # (kind " +-", old no, new no, text)

    @property
    def new_end(self) -> int:
        return self.new_start + max(self.new_len, 1) - 1

    def text(self) -> str:
        return "".join(f"{kind}{body}" if body.endswith("\n") else f"{kind}{body}\n"
                       for kind, _, _, body in self.lines)


@dataclass(slots=True)
class FileChange:
    path: str
    old_path: str
    status: str  # added | modified | deleted | renamed
    hunks: list[Hunk] = field(default_factory=list)
    note: str = ""  # why the file is only summarised ("" = reviewed)
    lockfile: bool = False

    @property
    def added(self) -> frozenset[int]:
        return frozenset(n for h in self.hunks for k, _, n, _ in h.lines if k == "+")

    @property
    def changed_count(self) -> int:
        return sum(1 for h in self.hunks for k, _, _, _ in h.lines if k in "+-")

    def hunk_for(self, start: int, end: int) -> Hunk | None:
        """The hunk whose new-side range holds ``start..end`` (None: outside the diff)."""
        for hunk in self.hunks:
            if hunk.new_len and hunk.new_start <= start <= end <= hunk.new_end:
                return hunk
        return None

    def near_added(self, start: int, end: int, context: int) -> bool:
        added = self.added
        return any(n in added for n in range(max(start - context, 1), end + context + 1))


@cache
def rules() -> dict[str, Any]:
    text = resources.files("aiagent.engines.review").joinpath("skip.toml").read_text("utf-8")
    return tomllib.loads(text)


def parse(diff: str) -> list[FileChange]:
    from unidiff.errors import UnidiffParseError
    from unidiff.patch import PatchSet

    try:
        patch = PatchSet(diff)
    except UnidiffParseError as exc:
        raise ValueError(f"cannot parse the git diff: {exc}") from None
    return [_file(pf) for pf in patch]


def _strip(name: str | None, prefix: str) -> str:
    name = name or ""
    return name[len(prefix):] if name.startswith(prefix) else name


def _file(pf: Any) -> FileChange:
    old = _strip(pf.source_file, "a/")
    new = _strip(pf.target_file, "b/")
    status = ("added" if pf.is_added_file else "deleted" if pf.is_removed_file
              else "renamed" if pf.is_rename else "modified")
    path = old if status == "deleted" else new
    old = "" if status == "added" else old
    change = FileChange(path, old, status, [_hunk(h) for h in pf])
    change.note = _note(pf, change)
    change.lockfile = classify(path) == "lockfile"
    return change


def _hunk(h: Any) -> Hunk:
    lines = tuple((ln.line_type, ln.source_line_no or 0, ln.target_line_no or 0, ln.value)
                  for ln in h if ln.line_type in ("+", "-", " "))
    return Hunk(h.target_start, h.target_length, h.source_start, h.source_length,
                (h.section_header or "").strip(), lines)


def _note(pf: Any, change: FileChange) -> str:
    r = rules()
    path = change.path
    if change.status == "deleted":
        return "deleted"
    if getattr(pf, "is_binary_file", False):
        return "binary file"
    if getattr(pf, "is_submodule", False) or any(
            body.startswith("Subproject commit") for h in change.hunks for _, _, _, body in h.lines):
        return "submodule"
    if classify(path) == "lockfile":
        return "lockfile (checked for vulnerable and disallowed dependencies)"
    if any(fnmatch.fnmatch(path, g) for g in r["vendored"]):
        return "vendored"
    if any(fnmatch.fnmatch(path, g) for g in r["generated"]) or _has_marker(change):
        return "generated"
    return _size_note(change)


def _has_marker(change: FileChange) -> bool:
    if not change.hunks or change.hunks[0].new_start > 1:
        return False
    head = "".join(body for _, _, _, body in change.hunks[0].lines[:5])
    return any(m in head for m in rules()["generated_markers"])


def _size_note(change: FileChange) -> str:
    r = rules()
    count = change.changed_count
    if count > r["max_changed_lines"]:
        return f"huge change ({count} lines)"
    added = [body for h in change.hunks for k, _, _, body in h.lines if k == "+"]
    if added and sum(len(b) for b in added) / len(added) > r["minified_line_length"]:
        return "minified"
    return ""
