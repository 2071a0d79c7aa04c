"""``!command``: the user runs a shell command; its output is shown live and shared with
the model along with the next message. Esc (or Ctrl-C) stops the command and everything
it started.

The command goes through the same process runner as the shell tool
(:mod:`aiagent.infra.process.runner`): output is read as it comes (``!sleep 6 & echo hi``
returns as soon as the shell exits; the background ``sleep`` is stopped), the
``[tools.shell]`` hard and inactivity timeouts apply, only the head and tail of the output
are kept in memory, and the whole process tree is killed at the end."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from aiagent.agent.tools.shell.env import command_env
from aiagent.agent.tools.shell.runtime import ShellSettings
from aiagent.contracts.events import ToolCallEvent, ToolOutputEvent, ToolResultEvent
from aiagent.contracts.tools import ToolError
from aiagent.frontends.tui import render
from aiagent.infra.config.model import as_table
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, new_tag, spawn

if TYPE_CHECKING:
    from aiagent.frontends.tui.app import InteractiveApp
    from aiagent.infra.process.runner import Outcome, Running

SHARE_LIMIT = 30_000  # characters of output shared with the model
KEPT_BYTES = SHARE_LIMIT // 2  # bytes of head and of tail kept in memory


def capped(text: str, limit: int = SHARE_LIMIT) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… [{len(text) - limit} characters cut] …\n{text[-half:]}"


async def _keys(keys: Any, stop: asyncio.Event, view: Any) -> None:
    while True:
        key = await keys.get()
        if key in ("escape", "c-c") and not stop.is_set():
            view.print(render.notice("■ stopping the command", "yellow"))
            stop.set()


def _shell_settings(app: InteractiveApp) -> Any:

    settings = app.settings
    try:
        return ShellSettings.from_table(as_table(settings.tools.shell) if settings is not None else {})
    except ToolError:
        return ShellSettings()


async def _start(app: InteractiveApp, command: str, view: Any) -> Running:

    settings = _shell_settings(app)
    shell = app.env.get("SHELL") or "/bin/sh"
    env = command_env(new_tag(), settings.env, base=app.env)

    def sink(stream: str, text: str) -> None:
        view.handle(ToolOutputEvent("user-shell", "stdout", text))

    return await spawn([shell, "-c", command], cwd=app.workspace, env=env,
                       capture=Capture(None, KEPT_BYTES, KEPT_BYTES, 0), on_output=sink,
                       merge_stderr=True, grace=settings.kill_grace)


def _limits(app: InteractiveApp) -> Any:

    settings = _shell_settings(app)
    return Limits(timeout=settings.timeout or None, inactivity=settings.inactivity_timeout or None,
                  kill_grace=settings.kill_grace)


def _status(outcome: Outcome | None, code: int | None) -> str:
    if outcome is not None and outcome.reason in ("timeout", "inactivity_timeout"):
        return f"timed out after {outcome.duration:.0f} s"
    if outcome is not None and outcome.canceled:
        return "stopped"
    return f"exit code {code}"


async def run_user_shell(app: InteractiveApp, command: str) -> None:
    if not command:
        app.say(render.notice("usage: !COMMAND (runs in your shell; the output goes to the "
                              "model with your next message)"))
        return
    output, status = await _show_live(app, command)  # head + tail: bounded by KEPT_BYTES
    app.next_message.share(
        f"<user-shell-command>\n$ {command}\n{output.rstrip()}\n[{status}]\n"
        "</user-shell-command>")
    app.say(render.notice(f"  {status} · shared with your next message"))


async def _show_live(app: InteractiveApp, command: str) -> tuple[str, str]:
    """Stream the command's output into a tool-style block; Esc kills it."""
    from aiagent.frontends.tui.running import key_reader, make_view

    view = make_view(app.screen)
    view.label = "Running your command"
    view.start()
    view.handle(ToolCallEvent("user-shell", "!", {"command": command}))
    outcome: Outcome | None = None
    output, code = "", None
    try:
        running = await _start(app, command, view)
        stop = asyncio.Event()
        with key_reader(app.term) as keys:
            watcher = asyncio.ensure_future(_keys(keys, stop, view)) if keys else None
            try:
                outcome = await running.supervise(_limits(app), stop)
            finally:
                if watcher is not None:
                    watcher.cancel()
        output, code = running.capture.text(), running.exit_status()
    except OSError as err:
        output = f"{command.split()[0] if command.split() else command}: {err.strerror or err}"
    finally:
        status = _status(outcome, code)
        view.handle(ToolResultEvent("user-shell", "!", output or status, code != 0))
        await view.stop()
        app.tool_output.keep(view.finished)
    return output, status
