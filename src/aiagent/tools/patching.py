"""Apply a parsed ``*** Begin Patch`` to the workspace.

Every change is computed and checked (paths inside the workspace, files not binary and not
changed since the model read them) before the first file is written, so a bad hunk leaves
the tree untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aiagent.tools import textio
from aiagent.tools.base import ToolContext, ToolError
from aiagent.tools.patch import Hunk, PatchError, apply_chunks, parse_patch
from aiagent.tools.workspace import display_path, resolve_path


@dataclass(slots=True)
class Change:
    letter: str  # A, M or D as in the summary
    shown: str  # the path as written in the patch
    path: Path
    current: textio.TextFile | None
    new_text: str | None  # None for deletions
    dest: Path | None = None


def apply_patch_text(ctx: ToolContext, text: str) -> str:
    try:
        hunks = parse_patch(text)
        changes = [_plan(ctx, hunk) for hunk in hunks]
    except PatchError as err:
        raise ToolError(str(err)) from None
    if not changes:
        raise ToolError("No files were modified.")
    for change in changes:
        _perform(ctx, change)
    lines = ["Success. Updated the following files:"]
    for letter in "AMD":
        lines += [f"{letter} {c.shown}" for c in changes if c.letter == letter]
    return "\n".join(lines) + "\n"


def _plan(ctx: ToolContext, hunk: Hunk) -> Change:
    path = resolve_path(ctx, hunk.path, field="patch path")
    if hunk.kind == "add":
        if path.is_dir():
            raise ToolError(f"cannot add {hunk.path}: it is a directory")
        current = textio.load(path) if path.exists() else None
        if current is not None:
            textio.check_not_stale(ctx, path, hunk.path)
        return Change("A", hunk.path, path, current, hunk.contents)
    if not path.is_file():
        verb = "delete" if hunk.kind == "delete" else "update"
        raise ToolError(f"Failed to {verb} {hunk.path}: no such file")
    current = textio.load(path)
    textio.check_not_stale(ctx, path, hunk.path)
    if hunk.kind == "delete":
        return Change("D", hunk.path, path, current, None)
    new_text = apply_chunks(current.text, hunk.chunks, hunk.path)
    dest = resolve_path(ctx, hunk.move_to, field="move path") if hunk.move_to else None
    shown = hunk.move_to or hunk.path
    return Change("M", shown, path, current, new_text, dest)


def _perform(ctx: ToolContext, change: Change) -> None:
    from aiagent.core.events import FileDiffEvent

    old = change.current.text if change.current else ""
    target = change.dest or change.path
    if change.new_text is None:
        change.path.unlink()
        ctx.state.get(textio.READS_KEY, {}).pop(str(change.path), None)
    else:
        shape = change.current or textio.TextFile(path=target, text="")
        textio.atomic_write(target, shape.encode(change.new_text), shape.mode)
        if change.dest is not None and change.dest != change.path:
            change.path.unlink()
        textio.remember_read(ctx, target)
    diff = textio.unified_diff(old, change.new_text or "", display_path(ctx, target))
    if diff:
        ctx.emit(FileDiffEvent(id=ctx.call_id, path=display_path(ctx, target), diff=diff))
