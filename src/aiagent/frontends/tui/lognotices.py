"""Warnings logged while the UI runs, shown as notice lines in the conversation.

Without this, a ``logging`` warning (a user hook that failed, a subagent that could not be
saved, a library's complaint) goes to stderr through Python's last-resort handler and lands
in the middle of the spinner or the input line. :meth:`LogNotices.installed` puts a handler
on the root logger for as long as the app runs (and takes it off again, leaving the
handlers as they were); each WARNING-or-above record becomes one ``! …`` line printed
through the UI's own output path: the turn's view while a turn runs (so the live area is
cleared and drawn again below it), above the input line otherwise. The same message is
shown once per turn. ``--debug`` keeps its own stderr handler (records and tracebacks), as
in every other mode; headless runs, the web server and ACP never install this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from aiagent.frontends.tui import render

if TYPE_CHECKING:
    from aiagent.frontends.tui.screen import Screen

PREFIX = "aiagent: "  # the loggers' own marker for stderr; the notice says "!" instead
STYLE = "yellow"


class LogNotices:
    """Where logged warnings are shown: the active turn's view, or the screen."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self._view: Any = None  # the running turn's view (has .print), or None
        self._handler: _NoticeHandler | None = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """The handler on the root logger while the block runs (inside the event loop)."""
        handler = _NoticeHandler(self._show, asyncio.get_running_loop())
        root = logging.getLogger()
        root.addHandler(handler)
        self._handler = handler
        try:
            yield
        finally:
            root.removeHandler(handler)
            self._handler = None

    @contextlib.contextmanager
    def during(self, view: Any) -> Iterator[None]:
        """While a turn runs: notices go through its ``view``; repeats are shown once."""
        self._view = view
        self._forget()
        try:
            yield
        finally:
            self._view = None
            self._forget()

    def _forget(self) -> None:
        if self._handler is not None:
            self._handler.forget()

    def _show(self, message: str) -> None:
        line = render.notice(f"! {message}", STYLE)
        if self._view is not None:
            self._view.print(line)
        else:
            self.screen.say(line)


class _NoticeHandler(logging.Handler):
    """Hands each new WARNING-or-above message to ``show`` on the event loop's thread."""

    def __init__(self, show: Any, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.WARNING)
        self.show, self.loop = show, loop
        self.seen: set[str] = set()

    def forget(self) -> None:
        with self.lock or contextlib.nullcontext():
            self.seen.clear()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = notice_text(record)
        except Exception:  # noqa: BLE001 - a bad record must not break the turn
            self.handleError(record)
            return
        if message in self.seen:
            return
        self.seen.add(message)
        try:  # later, from the loop: never in the middle of a redraw, and from any thread
            self.loop.call_soon_threadsafe(self.show, message)
        except RuntimeError:  # the loop is closed: stderr, as without this handler
            if logging.lastResort is not None:
                logging.lastResort.handle(record)


def notice_text(record: logging.LogRecord) -> str:
    """The record as one notice: its message without the ``aiagent:`` marker, and the
    exception's name and text when it carries one (the traceback is for ``--debug``)."""
    text = record.getMessage().strip().removeprefix(PREFIX)
    if record.name != "aiagent" and not record.name.startswith("aiagent."):
        text = f"{record.name}: {text}"  # a library's: say whose
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        text = f"{text}: {type(exc).__name__}: {exc}"
    if record.levelno >= logging.ERROR:
        text = f"{record.levelname.lower()}: {text}"
    return text
