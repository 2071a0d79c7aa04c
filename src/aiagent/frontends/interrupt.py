"""Stopping a run on Ctrl-C (SIGINT) and SIGTERM, whatever it is doing.

The first signal cancels the run: the agent loop ends with an ``interrupted`` DoneEvent
(the session keeps what was said), a running command's process tree is killed, and the
process exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).

Two things could keep a cancelled run alive, and neither may:

* Work handed to a thread (the repository map's walk, a file search, a large read) cannot
  be interrupted. The event loop's default executor is :class:`DaemonThreads`: each call
  runs in a daemon thread that is never waited for, at the end of the loop or of Python.
* Something that does not end when cancelled (a stuck close). ``grace`` seconds after the
  signal the process leaves anyway (``os._exit``); the process reaper then ends every
  command it started, as it does when the agent is killed.

A second signal leaves at once.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
GRACE = 1.5  # seconds from the signal to a forced exit (the promise is 2 s)


def exit_code(signum: int) -> int:
    """The shell's convention: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + signum


class Stopped(KeyboardInterrupt):
    """A signal arrived before there was a run to cancel; carries the exit code."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = exit_code(signum)


class DaemonThreads(concurrent.futures.ThreadPoolExecutor):
    """An executor whose calls each run in a daemon thread, never joined: a walk that is
    still going when the run is cancelled does not hold the process. (A subclass of
    ThreadPoolExecutor only because asyncio's default executor must be one.)"""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting side
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name="aiagent-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None  # nothing to wait for: the threads are daemons


class StopOnSignal:
    """While entered: SIGINT and SIGTERM call the run's cancel (see :meth:`cancel_with`),
    or raise :class:`Stopped` when no run is under way, and force the exit ``grace``
    seconds later if the process is still there."""

    def __init__(self, grace: float = GRACE) -> None:
        self.grace = grace
        self.signum = 0
        self._cancel: Callable[[], None] | None = None
        self._previous: dict[int, Any] = {}

    @property
    def exit_code(self) -> int:
        return exit_code(self.signum) if self.signum else 0

    def __enter__(self) -> StopOnSignal:
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def cancel_with(self, cancel: Callable[[], None] | None) -> None:
        """What a signal calls from now on (a thread-safe cancel of the run; None: no run)."""
        self._cancel = cancel
        if cancel is not None and self.signum:
            cancel()  # the signal came first

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum:
            self._leave("stopped again")
        self.signum = signum
        timer = threading.Timer(self.grace, self._leave, args=("still busy",))
        timer.daemon = True
        timer.start()
        if self._cancel is None:
            raise Stopped(signum)
        self._cancel()

    def _leave(self, why: str) -> None:
        # no flush of sys.stdout: the thread that is stuck may hold its lock
        name = signal.Signals(self.signum).name
        with contextlib.suppress(OSError):
            os.write(2, f"aiagent: {name}: {why}; leaving now\n".encode())
        os._exit(self.exit_code)
