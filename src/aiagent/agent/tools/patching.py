"""Apply a parsed ``*** Begin Patch`` to the workspace.

Every path of the patch (``Move to`` included) is checked first, then every change is
computed and checked (files not binary and not changed since the model read them) before
the first file is written, so a bad path or hunk leaves the tree untouched. Reads and writes
go through folder handles (:func:`aiagent.agent.tools.workspace.open_parent`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aiagent.agent.tools import textio
from aiagent.agent.tools.patch import Hunk, PatchError, apply_chunks, parse_patch
from aiagent.agent.tools.workspace import display_path, open_parent, resolve_path
from aiagent.contracts.events import FileDiffEvent
from aiagent.contracts.tools import ToolContext, ToolError


@dataclass(slots=True)
class Change:
    letter: str  # A, M or D as in the summary
    shown: str  # the path as written in the patch
    path: Path
    current: textio.TextFile | None
    new_text: str | None  # None for deletions
    dest: Path | None = None


def apply_patch_text(ctx: ToolContext, text: str, buffers: Mapping[Path, str] | None = None) -> str:
    changes = plan_patch(ctx, text, buffers)
    for change in changes:
        _perform(ctx, change)
    return summary(changes)


def patch_targets(ctx: ToolContext, text: str) -> list[Path]:
    """The files a patch reads (resolved and checked); [] for a patch that does not parse
    (:func:`plan_patch` reports it)."""
    try:
        hunks = parse_patch(text)
    except PatchError:
        return []
    return [_resolve(ctx, hunk)[0] for hunk in hunks]


def plan_patch(ctx: ToolContext, text: str, buffers: Mapping[Path, str] | None = None) -> list[Change]:
    """Every change of the patch, checked and computed; nothing is written yet. A file in
    ``buffers`` starts from that text (an editor's unsaved buffer: :func:`textio.with_buffer`)."""
    try:
        hunks = parse_patch(text)
    except PatchError as err:
        raise ToolError(str(err)) from None
    places = [_resolve(ctx, hunk) for hunk in hunks]  # every path is checked before any read
    held = buffers or {}
    try:
        changes = [_plan(ctx, hunk, path, dest, held.get(path))
                   for hunk, (path, dest) in zip(hunks, places, strict=True)]
    except PatchError as err:
        raise ToolError(str(err)) from None
    if not changes:
        raise ToolError("No files were modified.")
    return changes


def summary(changes: list[Change]) -> str:
    lines = ["Success. Updated the following files:"]
    for letter in "AMD":
        lines += [f"{letter} {c.shown}" for c in changes if c.letter == letter]
    return "\n".join(lines) + "\n"


def _resolve(ctx: ToolContext, hunk: Hunk) -> tuple[Path, Path | None]:
    path = resolve_path(ctx, hunk.path, field="patch path")
    dest = resolve_path(ctx, hunk.move_to, field="move path") if hunk.move_to else None
    return path, dest


def _read(ctx: ToolContext, path: Path) -> textio.TextFile | None:
    try:
        with open_parent(ctx, path) as parent:
            return textio.read_at(parent)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ToolError(f"cannot read {path}: {err.strerror or err}") from None


def _plan(ctx: ToolContext, hunk: Hunk, path: Path, dest: Path | None,
          buffer: str | None = None) -> Change:
    current = textio.with_buffer(_read(ctx, path), buffer)
    if hunk.kind == "add":
        if current is not None:
            textio.check_not_stale(ctx, path, hunk.path, current)
        return Change("A", hunk.path, path, current, hunk.contents)
    if current is None:
        verb = "delete" if hunk.kind == "delete" else "update"
        raise ToolError(f"Failed to {verb} {hunk.path}: no such file")
    textio.check_not_stale(ctx, path, hunk.path, current)
    if hunk.kind == "delete":
        return Change("D", hunk.path, path, current, None)
    new_text = apply_chunks(current.text, hunk.chunks, hunk.path)
    return Change("M", hunk.move_to or hunk.path, path, current, new_text, dest)


def remove(ctx: ToolContext, path: Path) -> None:
    """Delete ``path`` (a symlink there is removed, never followed) and forget its read."""
    with textio.os_errors(path, "delete"), open_parent(ctx, path) as parent:
        textio.unlink_at(parent)
    ctx.state.get(textio.READS_KEY, {}).pop(str(path), None)


def _perform(ctx: ToolContext, change: Change) -> None:
    old = change.current.text if change.current else ""
    target = change.dest or change.path
    with textio.os_errors(target):
        if change.new_text is None:
            with open_parent(ctx, change.path) as parent:
                textio.unlink_at(parent)
            ctx.state.get(textio.READS_KEY, {}).pop(str(change.path), None)
        else:
            shape = change.current or textio.TextFile(path=target, text="")
            data = shape.encode(change.new_text)
            with open_parent(ctx, target, create=True) as parent:
                textio.write_at(parent, data, shape.mode)
            if change.dest is not None and change.dest != change.path:
                with open_parent(ctx, change.path) as parent:
                    textio.unlink_at(parent)
            textio.remember_written(ctx, target, data)
    diff = textio.unified_diff(old, change.new_text or "", display_path(ctx, target))
    if diff:
        ctx.emit(FileDiffEvent(id=ctx.call_id, path=display_path(ctx, target), diff=diff))
