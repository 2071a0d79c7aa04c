"""Where the interactive UI writes: the rich console (made on first use), the raw output
stream, the terminal's facts, and the input line when one is active (notices go above it).

Parts that only show things (history, approval boxes, the turn view, the trust question)
get a :class:`Screen`, not the whole app."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from aiagent.frontends.tui import render

if TYPE_CHECKING:
    from collections.abc import Callable

    from aiagent.frontends.tui.terminal import TermInfo


class Above(Protocol):
    """An input line that can print above itself (see :mod:`.frontends`)."""

    def print_above(self, fn: Callable[[], None]) -> None: ...


class Screen:
    def __init__(self, term: TermInfo, out: Any) -> None:
        self.term, self.out = term, out
        self._console: Any = None
        self._line: Above | None = None

    @property
    def console(self) -> Any:
        """The rich console, created on first use (rich is not on the start-up path)."""
        if self._console is None:
            width = None if self.term.tty else self.term.width  # a terminal: follow resizes
            self._console = render.make_console(self.term, file=self.out, width=width)
        return self._console

    def width(self) -> int:
        return int(self.console.width)

    def use_line(self, line: Above | None) -> None:
        """From now on, print above ``line`` (None: straight out)."""
        self._line = line

    def say(self, renderable: Any) -> None:
        """Print above the input line (or straight out when no input is active)."""
        if self._line is not None:
            self._line.print_above(lambda: self.print(renderable))
        else:
            self.print(renderable)

    def print(self, renderable: Any) -> None:
        """Print now, whatever the input line does (from inside a key binding)."""
        self.console.print(renderable)

    def write(self, text: str) -> None:
        """Raw text, flushed (questions asked before the input line exists)."""
        self.out.write(text)
        self.out.flush()
