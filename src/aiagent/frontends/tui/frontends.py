"""The two ways to read input: the full input line on a terminal, plain lines otherwise."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiagent.infra.config import paths

if TYPE_CHECKING:
    from aiagent.frontends.tui.app import InteractiveApp
    from aiagent.frontends.tui.screen import Screen


class TerminalInput:
    """prompt_toolkit's input line, with the app's status, hints and completion."""

    def __init__(self, app: InteractiveApp) -> None:
        from aiagent.frontends.tui.completion import CommandCompleter, InputCompleter, PathCompleter
        from aiagent.frontends.tui.images import paste_hook
        from aiagent.frontends.tui.input import InputHooks, InputLine

        hooks = InputHooks(status=app.status_text, expand_last=app.expand_last,
                           cycle_mode=app.cycle_mode, paste_images=paste_hook(app))
        completer = InputCompleter(CommandCompleter(app.commands),
                                   PathCompleter(lambda: app.workspace))
        history = None if app.env.get("AIAGENT_NO_HISTORY") else \
            paths.data_dir(app.env) / "input_history"
        self.line = InputLine(hooks, completer, history, app.term.color)
        self.frame = app.frame

    async def read(self, typed: str = "") -> str | None:
        if self.frame is not None:  # the editor now draws over the painted first frame
            self.frame.handoff()
            self.frame = None
        return await self.line.read(typed)

    def on_first_render(self, callback: Callable[[], None]) -> None:
        editor = self.line.session.app  # prompt_toolkit's application

        def fire(_: object) -> None:
            editor.after_render -= fire
            asyncio.get_running_loop().call_soon(callback)

        editor.after_render += fire

    def print_above(self, fn: Callable[[], None]) -> None:
        if self.line.session.app.is_running:
            from prompt_toolkit.application import run_in_terminal

            run_in_terminal(fn)
        else:
            fn()

    def refresh(self) -> None:
        if self.line.session.app.is_running:
            self.line.session.app.invalidate()

    def stop(self) -> None:
        if self.line.session.app.is_running:
            self.line.session.app.exit()

    def ask(self) -> None:
        return None


class PlainInput:
    """Line mode: stdout is not a terminal, so no cursor movement and no colour."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self._stop = asyncio.Event()

    async def read(self, typed: str = "", prompt: str = "> ") -> str | None:
        self.screen.write(prompt)
        line: str = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return None
        return line.rstrip("\n")

    def print_above(self, fn: Callable[[], None]) -> None:
        fn()

    def on_first_render(self, callback: Callable[[], None]) -> None:
        callback()

    def refresh(self) -> None:
        return None

    def stop(self) -> None:
        return None


def make_input(app: InteractiveApp) -> Any:
    return TerminalInput(app) if app.term.tty else PlainInput(app.screen)
