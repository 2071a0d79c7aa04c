"""The batch's progress: a bar on a terminal, plain lines in CI or a pipe."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


def wants_bar(stream: TextIO) -> bool:
    if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class BatchProgress:
    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total, self.done = total, 0
        self._bar: Any = None
        if total and wants_bar(self.stream):
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self._bar = Progress("{task.description}", BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(file=self.stream))
            self._id = self._bar.add_task("batch", total=total)
            self._bar.start()

    def result(self, result: dict[str, Any]) -> None:
        self.done += 1
        found = sum((result.get("findings") or {}).values())
        status = (f"done ({found} findings)" if result["status"] == "done"
                  else f"failed: {result['reason']}")
        line = f"batch: [{self.done}/{self.total}] {result['name']} {status} ({result.get('seconds', 0):.1f}s)"
        if self._bar is not None:
            if result["status"] != "done":
                self._bar.console.print(line, markup=False, highlight=False)
            self._bar.update(self._id, advance=1)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
