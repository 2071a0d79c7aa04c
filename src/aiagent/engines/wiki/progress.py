"""What a wiki run shows while it works, on stderr.

:class:`Progress` is the pipeline's ``say``: call it with a stage line (``"scan: 12 files"``).
Its two other methods are the hook for the model passes: :meth:`Progress.modules` (modules
analysed so far, out of how many) and :meth:`Progress.usage` (tokens and cost so far).

On a terminal it keeps one live status line at the bottom (stage, modules done/total,
tokens, cost, elapsed time) under the finished stages; when stderr is not a terminal, or
``CI`` is set, or ``TERM=dumb``, it writes plain ``wiki: …`` log lines instead (module
counts at most every tenth of the way, usage once at the end).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Protocol, TextIO

TRUE_WORDS = ("1", "true", "yes", "on")
CLEAR = "\r\x1b[K"


class ProgressSink(Protocol):
    def __call__(self, line: str) -> None: ...

    def modules(self, done: int, total: int) -> None: ...

    def usage(self, tokens: int, cost: float | None = None) -> None: ...


def wants_live(stream: TextIO, env: Mapping[str, str]) -> bool:
    if env.get("CI", "").strip().lower() in TRUE_WORDS or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    def __init__(self, stream: TextIO, live: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.live = stream, live
        self.clock = clock
        self.started = self.clock()
        self.stage = ""
        self.done = self.total = 0
        self.tokens = 0
        self.cost: float | None = None
        self._logged = -1  # the last module count written in plain mode

    def __call__(self, line: str) -> None:
        self.stage = line.split(":", 1)[0]
        if self.live:
            self._write(f"{CLEAR}✓ {line}\n")
            self._status()
        else:
            self._write(f"wiki: {line}\n")

    def modules(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self.live:
            self._status()
        elif self._due(done, total):
            self._logged = done
            self._write(f"wiki: modules: {done}/{total} done\n")

    def usage(self, tokens: int, cost: float | None = None) -> None:
        self.tokens, self.cost = tokens, cost
        if self.live:
            self._status()

    def close(self) -> None:
        """Clear the status line; print the tokens and cost when the run used any."""
        if self.live:
            self._write(CLEAR)
        if self.tokens:
            self._write(f"wiki: {self._usage_text()}\n")

    def _due(self, done: int, total: int) -> bool:
        step = max(1, total // 10)
        return done != self._logged and (done >= total or done - max(self._logged, 0) >= step or done == 1)

    def _usage_text(self) -> str:
        text = f"{self.tokens:,} tokens"
        return text + (f", ${self.cost:.4f}" if self.cost is not None else "")

    def _status(self) -> None:
        parts = [self.stage or "starting"]
        if self.total:
            parts.append(f"modules {self.done}/{self.total}")
        if self.tokens:
            parts.append(self._usage_text())
        parts.append(f"{self.clock() - self.started:.0f}s")
        self._write(f"{CLEAR}… {' · '.join(parts)}")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
