"""The input line (prompt_toolkit): multi-line editing, history, completion, keys.

Enter sends (a line ending in ``\\`` continues instead); Alt-Enter or Ctrl-J adds a
newline; Tab completes; Up/Down and Ctrl-R walk the history, which is kept across
sessions; Ctrl-C clears the line, and twice on an empty line quits; Ctrl-D on an empty
line quits; Ctrl-O shows the last tool output in full; Shift-Tab cycles the approval
mode. A large paste is shown as ``[Pasted text #N +L lines]`` and sent in full.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import Completer
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from aiagent.frontends.tui.status import hint_line

QUIT_WINDOW = 2.0
PASTE_LINES = 8
PASTE_CHARS = 1500
PLACEHOLDER = re.compile(r"\[Pasted text #(\d+) \+\d+ lines\]")

STYLE = {
    "rule": "fg:ansibrightblack",
    "prompt": "bold fg:ansicyan",
    "bottom-toolbar": "noreverse fg:ansibrightblack bg:default",
    "bottom-toolbar.text": "noreverse",
    "status": "fg:ansibrightblack",
    "notice": "fg:ansiyellow",
}


@dataclass
class InputHooks:
    """What the input line asks of the app."""

    status: Callable[[int], str]
    expand_last: Callable[[], None]
    cycle_mode: Callable[[], str]
    notice: str = ""
    pastes: dict[int, str] = field(default_factory=dict)
    # a paste of image paths -> the placeholders to insert instead (see tui/images.py)
    paste_images: Callable[[str], str | None] | None = None


def expand_pastes(text: str, pastes: dict[int, str]) -> str:
    return PLACEHOLDER.sub(lambda m: pastes.get(int(m.group(1)), m.group(0)), text)


class InputLine:
    def __init__(self, hooks: InputHooks, completer: Completer, history_file: Path | None,
                 color: bool) -> None:
        self.hooks = hooks
        self._last_interrupt = 0.0
        self.session: PromptSession[str] = PromptSession(
            message=self._message,
            multiline=True,
            prompt_continuation=lambda width, line, wrap: "  ",
            history=_history(history_file),
            completer=completer,
            complete_while_typing=True,
            reserve_space_for_menu=6,
            bottom_toolbar=self._toolbar,
            key_bindings=self._bindings(),
            style=Style.from_dict(STYLE),
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            include_default_pygments_style=False,
            enable_suspend=True,
            mouse_support=False,
        )

    async def read(self, typed: str = "") -> str | None:
        """The next input (starting with ``typed``), or None when the user quits."""
        try:
            text = await self.session.prompt_async(default=typed)
        except EOFError:
            return None
        if text is None:
            return None
        return expand_pastes(text, self.hooks.pastes)

    # ---- rendering -------------------------------------------------------------------

    def _width(self) -> int:
        return self.session.app.output.get_size().columns

    def _message(self) -> FormattedText:
        width = max(1, self._width() - 1)
        return FormattedText([("class:rule", "─" * width + "\n"), ("class:prompt", "› ")])

    def _toolbar(self) -> FormattedText:
        width = max(10, self._width() - 1)
        status = self.hooks.status(width)
        notice = self.hooks.notice
        return FormattedText([
            ("class:status", status + "\n"),
            ("class:notice" if notice else "class:status", hint_line(width, notice)),
        ])

    def set_notice(self, text: str, seconds: float = QUIT_WINDOW) -> None:
        self.hooks.notice = text
        app = self.session.app
        app.invalidate()

        def clear() -> None:
            if self.hooks.notice == text:
                self.hooks.notice = ""
                app.invalidate()

        if app.loop is not None:
            app.loop.call_later(seconds, clear)

    # ---- keys ------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = self._edit_bindings()
        self._app_bindings(kb)
        return kb

    def _edit_bindings(self) -> KeyBindings:
        """Enter, new lines, and folding large pastes."""
        kb = KeyBindings()

        @kb.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            state = buffer.complete_state
            if state is not None and state.current_completion is not None:
                buffer.apply_completion(state.current_completion)
                if not buffer.text.startswith("/"):
                    return
            elif state is not None and state.completions and _is_command_word(buffer.text):
                buffer.apply_completion(state.completions[0])  # "/he" + Enter runs /help
            if buffer.document.text_before_cursor.endswith("\\"):
                buffer.delete_before_cursor(1)
                buffer.insert_text("\n")
                return
            buffer.validate_and_handle()

        @kb.add("escape", "enter")
        @kb.add("c-j")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        @kb.add(Keys.BracketedPaste)
        def _paste(event: KeyPressEvent) -> None:
            text = event.data.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.count("\n") + 1
            images = self.hooks.paste_images(text) if self.hooks.paste_images else None
            if images is not None:
                event.current_buffer.insert_text(images + " ")
            elif lines > PASTE_LINES or len(text) > PASTE_CHARS:
                number = len(self.hooks.pastes) + 1
                self.hooks.pastes[number] = text
                event.current_buffer.insert_text(f"[Pasted text #{number} +{lines} lines]")
            else:
                event.current_buffer.insert_text(text)

        return kb

    def _app_bindings(self, kb: KeyBindings) -> None:
        """Quitting, Ctrl-O and Shift-Tab."""

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if buffer.text:
                buffer.reset()
                return
            now = time.monotonic()
            if now - self._last_interrupt < QUIT_WINDOW:
                event.app.exit(result=None)
                return
            self._last_interrupt = now
            self.set_notice("Press Ctrl-C again to quit")

        @kb.add("c-d")
        def _eof(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if not buffer.text:
                event.app.exit(result=None)
            else:
                buffer.delete()

        @kb.add("c-o")
        def _expand(event: KeyPressEvent) -> None:
            run_in_terminal(self.hooks.expand_last)

        @kb.add("s-tab")
        def _mode(event: KeyPressEvent) -> None:
            mode = self.hooks.cycle_mode()
            self.set_notice(f"approval mode: {mode}", 3.0)


def _is_command_word(text: str) -> bool:
    return text.startswith("/") and " " not in text and "\n" not in text


def _history(path: Path | None) -> History:
    if path is None:
        return InMemoryHistory()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileHistory(str(path))
    except OSError:
        return InMemoryHistory()
