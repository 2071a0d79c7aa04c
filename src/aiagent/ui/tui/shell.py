"""``!command``: the user runs a shell command; its output is shown live and shared with
the model along with the next message. Esc (or Ctrl-C) stops the command and everything
it started."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import TYPE_CHECKING

from aiagent.core.events import ToolCallEvent, ToolOutputEvent, ToolResultEvent
from aiagent.ui.tui import render

if TYPE_CHECKING:
    from aiagent.ui.tui.app import InteractiveApp

SHARE_LIMIT = 30_000


def capped(text: str, limit: int = SHARE_LIMIT) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… [{len(text) - limit} characters cut] …\n{text[-half:]}"


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def _pump(proc: asyncio.subprocess.Process, view: object, parts: list[str]) -> None:
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(4096):
        text = chunk.decode("utf-8", errors="replace")
        parts.append(text)
        view.handle(ToolOutputEvent("user-shell", "stdout", text))  # type: ignore[attr-defined]


async def _keys(keys: object, proc: asyncio.subprocess.Process, view: object) -> None:
    while True:
        key = await keys.get()  # type: ignore[attr-defined]
        if key in ("escape", "c-c"):
            view.print(render.notice("■ stopping the command", "yellow"))  # type: ignore[attr-defined]
            _kill(proc)


async def run_user_shell(app: InteractiveApp, command: str) -> None:
    if not command:
        app.say(render.notice("usage: !COMMAND (runs in your shell; the output goes to the "
                              "model with your next message)"))
        return
    shell = app.env.get("SHELL") or "/bin/sh"
    proc = await asyncio.create_subprocess_exec(
        shell, "-c", command, cwd=app.workspace, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    output = await _show_live(app, proc, command)
    code = proc.returncode
    app.extra_context.append(
        f"<user-shell-command>\n$ {command}\n{capped(output).rstrip()}\n[exit code {code}]\n"
        "</user-shell-command>")
    app.say(render.notice(f"  exit code {code} · shared with your next message"))


async def _show_live(app: InteractiveApp, proc: asyncio.subprocess.Process, command: str) -> str:
    """Stream the command's output into a tool-style block; Esc kills it."""
    from aiagent.ui.tui.running import key_reader, make_view

    view, parts = make_view(app), list[str]()
    view.label = "Running your command"
    view.start()
    view.handle(ToolCallEvent("user-shell", "!", {"command": command}))
    try:
        with key_reader(app) as keys:
            watcher = asyncio.ensure_future(_keys(keys, proc, view)) if keys else None
            try:
                await _pump(proc, view, parts)
                await proc.wait()
            finally:
                if watcher is not None:
                    watcher.cancel()
    finally:
        _kill(proc)
        output = "".join(parts)
        view.handle(ToolResultEvent("user-shell", "!", output or f"exit code {proc.returncode}",
                                    proc.returncode not in (0, None)))
        await view.stop()
        app.last_blocks = view.finished
    return output
