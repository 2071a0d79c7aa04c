"""What the terminal can do, and reading single keys while a turn runs.

:func:`detect` decides colour (``NO_COLOR``), light or dark background (``AIAGENT_THEME``,
else ``COLORFGBG``), width, and whether stdout is a terminal at all (if not, the UI falls
back to plain lines). :class:`KeyReader` puts the terminal in a no-echo, no-signal mode and
turns bytes from stdin into key names (``escape``, ``c-c``, ``c-d``, ``enter``, or the
character) on an asyncio queue.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple, TextIO

if TYPE_CHECKING:  # not imported at start-up: the first frame is drawn before asyncio loads
    import asyncio

MIN_WIDTH = 20


class TermInfo(NamedTuple):  # a NamedTuple, not a dataclass: cheap to import at start-up
    tty: bool  # stdout and stdin are terminals: the full UI
    color: bool
    dark: bool
    width: int


def detect(env: Mapping[str, str], stdout: TextIO | None = None, stdin: TextIO | None = None) -> TermInfo:
    stdout, stdin = stdout or sys.stdout, stdin or sys.stdin
    tty = _isatty(stdout) and _isatty(stdin) and env.get("TERM", "") != "dumb"
    color = tty and not env.get("NO_COLOR")
    width = max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)
    return TermInfo(tty=tty, color=color, dark=is_dark(env), width=width)


def is_dark(env: Mapping[str, str]) -> bool:
    """``AIAGENT_THEME=light|dark`` wins; else ``COLORFGBG`` (``fg;bg``); else dark."""
    theme = env.get("AIAGENT_THEME", "").strip().lower()
    if theme in ("light", "dark"):
        return theme == "dark"
    parts = env.get("COLORFGBG", "").split(";")
    if len(parts) >= 2 and parts[-1].isdigit():
        return int(parts[-1]) < 7 or int(parts[-1]) == 8
    return True


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


KEY_NAMES = {b"\x1b": "escape", b"\x03": "c-c", b"\x04": "c-d", b"\r": "enter", b"\n": "enter",
             b"\x0f": "c-o", b"\x7f": "backspace"}


def decode_keys(data: bytes) -> list[str]:
    """Key names for one read from the terminal. A lone ESC byte is the Escape key; an
    escape sequence (arrows, function keys) arrives in one read and is ignored."""
    if data in KEY_NAMES:
        return [KEY_NAMES[data]]
    if data.startswith(b"\x1b"):
        return []
    keys: list[str] = []
    for char in data.decode("utf-8", errors="ignore"):
        raw = char.encode()
        keys.append(KEY_NAMES.get(raw, char))
    return keys


class KeyReader:
    """While entered: the terminal does not echo and Ctrl-C is a key, not a signal."""

    def __init__(self, fd: int | None = None) -> None:
        import asyncio

        self.fd = sys.stdin.fileno() if fd is None else fd
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self._saved: list | None = None  # type: ignore[type-arg]

    def __enter__(self) -> KeyReader:
        import asyncio
        import termios

        with contextlib.suppress(termios.error, OSError):
            self._saved = termios.tcgetattr(self.fd)
            mode = termios.tcgetattr(self.fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
            mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
            termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        asyncio.get_running_loop().add_reader(self.fd, self._readable)
        return self

    def __exit__(self, *exc: object) -> None:
        import asyncio
        import termios

        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self.fd)
        if self._saved is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 1024)
        except OSError:
            return
        for key in decode_keys(data):
            self.queue.put_nowait(key)

    async def get(self) -> str:
        return await self.queue.get()
