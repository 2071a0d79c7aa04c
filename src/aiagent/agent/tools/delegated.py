"""Writes handed to the front-end (an editor over ACP, ``fs/write_text_file``), so the
editor's buffers show what ``write_file``, ``edit`` and ``apply_patch`` changed.

Everything is decided on our side first: the path was resolved and kept inside the
workspace, the approval policy (protected paths included) allowed the call, the file was
read through a no-follow folder handle, checked for staleness and the new text computed.
Just before the hand-over the path is walked again without following symlinks (one placed
since is refused). Only then is the text given to the editor. When the editor fails, the
tool's result is an error and nothing stays half done: the files of an ``apply_patch``
already handed over are put back, and deletions (which the protocol cannot express; done
on disk by us) happen only after every write succeeded.

A file that is not plain UTF-8 (a BOM, Latin-1) is written by our atomic writer as
before: an editor's text API cannot promise to keep its bytes.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path

from aiagent.agent.tools import textio
from aiagent.agent.tools.patching import remove
from aiagent.agent.tools.tooldef import in_thread
from aiagent.agent.tools.workspace import display_path, open_parent
from aiagent.contracts.events import FileDiffEvent
from aiagent.contracts.tools import FileWriteAccess, ToolContext, ToolError

log = logging.getLogger("aiagent.agent.tools")


@dataclass(slots=True)
class Planned:
    """One file's new text, computed and checked, not yet written."""

    path: Path
    current: textio.TextFile | None  # the file as read (None: it is new)
    new_text: str


def editor_can_hold(shape: textio.TextFile | None) -> bool:
    """True when the editor's text keeps the file's bytes (UTF-8 without a BOM)."""
    return shape is None or (shape.encoding == "utf-8" and not shape.bom)


def _recheck(ctx: ToolContext, path: Path) -> None:
    """Walk to ``path`` again without following symlinks (folders are created as the
    local writer would); a symlink or a non-file there now is refused."""
    with textio.os_errors(path), open_parent(ctx, path, create=True) as parent:
        textio.read_at(parent)


def _write_local(ctx: ToolContext, plan: Planned) -> bytes:
    shape = plan.current or textio.TextFile(path=plan.path, text="")
    data = shape.encode(plan.new_text)
    with textio.os_errors(plan.path), open_parent(ctx, plan.path, create=True) as parent:
        textio.write_at(parent, data, shape.mode)
    textio.remember_written(ctx, plan.path, data)
    return data


async def save(ctx: ToolContext, writer: FileWriteAccess, plan: Planned) -> None:
    """Write one planned file through the editor (our writer for non-UTF-8 files), then
    record what the model now knows and emit the diff."""
    if not editor_can_hold(plan.current):
        await in_thread(_write_local, ctx, plan)
    else:
        shape = plan.current or textio.TextFile(path=plan.path, text="")
        text = shape.encode(plan.new_text).decode("utf-8")
        await in_thread(_recheck, ctx, plan.path)
        try:
            await writer.write_text(plan.path, text)
        except Exception as exc:  # noqa: BLE001 - the editor's failure is the model's error
            raise ToolError(f"the editor could not write {display_path(ctx, plan.path)} "
                            f"({_why(exc)}); nothing was changed") from None
        # the model knows the file as the editor now holds it (saved or in a buffer)
        textio.remember_text(ctx, plan.path, text)
    shown = display_path(ctx, plan.path)
    diff = textio.unified_diff(plan.current.text if plan.current else "", plan.new_text, shown)
    if diff:
        ctx.emit(FileDiffEvent(id=ctx.call_id, path=shown, diff=diff))


def _why(exc: Exception) -> str:
    data = getattr(exc, "data", None)  # a JSON-RPC error's details
    text = " ".join(f"{exc}{f': {data}' if data else ''}".split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"


async def save_all(ctx: ToolContext, writer: FileWriteAccess, plans: list[Planned],
                   removals: list[Path]) -> None:
    """Write every plan through the editor, then remove ``removals`` from disk. When a
    write fails, the files written before it are put back and nothing is removed."""
    reads = ctx.state.setdefault(textio.READS_KEY, {})
    known = {str(p.path): reads.get(str(p.path)) for p in plans}  # what the model had read
    done: list[Planned] = []
    for plan in plans:
        try:
            await save(ctx, writer, plan)
        except ToolError:
            await _undo(ctx, writer, done)
            for key, mark in known.items():
                if mark is None:
                    reads.pop(key, None)
                else:
                    reads[key] = mark
            raise
        done.append(plan)

    for path in removals:
        await in_thread(remove, ctx, path)


async def _undo(ctx: ToolContext, writer: FileWriteAccess, done: list[Planned]) -> None:
    """Put back the files of ``done``: old text through the editor (our writer when the
    editor refuses again); a file that did not exist is deleted."""

    for plan in reversed(done):
        if plan.current is None:
            with contextlib.suppress(ToolError):
                await in_thread(remove, ctx, plan.path)
            continue
        back = Planned(plan.path, plan.current, plan.current.text)
        if not editor_can_hold(plan.current):
            with contextlib.suppress(ToolError):
                await in_thread(_write_local, ctx, back)
            continue
        try:
            await writer.write_text(plan.path, plan.current.encode(plan.current.text).decode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - fall back to our own writer
            log.warning("tools: the editor could not restore %s (%s); writing the disk", plan.path, exc)
            with contextlib.suppress(ToolError):
                await in_thread(_write_local, ctx, back)
