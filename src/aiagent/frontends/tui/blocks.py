"""Tool calls as the UI shows them: a one-line header, live output, a short summary.

A :class:`ToolBlock` gathers one call's live output (bounded) and result, so the view can
show the last few lines while it runs and the whole of it on request (Ctrl-O).
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_LINES = 5000
SHELL_TOOLS = frozenset({"shell", "shell_command", "exec_command"})
PATH_KEYS = ("file_path", "path", "dir_path")


def command_of(args: dict[str, Any]) -> str:
    command = args.get("command", args.get("cmd", ""))
    if isinstance(command, list):
        argv = [str(a) for a in command]
        if len(argv) == 3 and argv[1] in ("-c", "-lc"):
            return argv[2]
        return " ".join(argv)
    return str(command)


def call_summary(name: str, args: dict[str, Any]) -> str:
    """A short description of a tool call's arguments for its header line."""
    if name in SHELL_TOOLS:
        return command_of(args)
    for key in PATH_KEYS:
        if isinstance(args.get(key), str):
            return str(args[key])
    if name == "apply_patch":
        paths = [ln.split(": ", 1)[1] for ln in str(args.get("input", "")).splitlines()
                 if ln.startswith(("*** Add File: ", "*** Update File: ", "*** Delete File: "))]
        return ", ".join(paths)
    if isinstance(args.get("pattern"), str):
        return str(args["pattern"])
    if name == "update_plan" and isinstance(args.get("plan"), list):
        return f"{len(args['plan'])} steps"  # the plan itself is shown as a block
    return json.dumps(args, ensure_ascii=False) if args else ""


def one_line(text: str, width: int) -> str:
    """``text`` on one line of at most ``width`` terminal cells (wide characters count
    two), cut with "…" when longer."""
    flat = " ".join(text.split())
    if flat.isascii():
        return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"
    from rich.cells import cell_len, set_cell_size

    if cell_len(flat) <= width:
        return flat
    return set_cell_size(flat, max(0, width - 1)).rstrip() + "…" if width > 0 else ""


@dataclass(slots=True)
class ToolBlock:
    id: str
    name: str
    args: dict[str, Any]
    started: float = field(default_factory=time.monotonic)
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_LINES))
    line_count: int = 0
    partial: str = ""
    diffs: list[str] = field(default_factory=list)
    result: str | None = None
    is_error: bool = False
    previewed: bool = False  # its diff was shown before it ran
    quiet: bool = False  # what it did was shown already (a plan): no result summary

    @property
    def summary(self) -> str:
        return call_summary(self.name, self.args)

    def add_output(self, chunk: str) -> None:
        text = self.partial + chunk.replace("\r\n", "\n")
        *done, self.partial = text.split("\n")
        for line in done:
            self.lines.append(line.rsplit("\r", 1)[-1])
            self.line_count += 1

    def output_lines(self) -> list[str]:
        tail = [self.partial] if self.partial else []
        return [*self.lines, *tail]

    def tail(self, count: int) -> list[str]:
        lines = self.output_lines()
        return lines[-count:] if count > 0 else []

    def finish(self, content: str, is_error: bool) -> None:
        self.result, self.is_error = content, is_error

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def full_text(self) -> str:
        """Everything worth re-reading: the live output (or else the result) and diffs."""
        lines = self.output_lines()
        body = "\n".join(lines) if lines else (self.result or "")
        if self.line_count > len(self.lines):
            body = f"… {self.line_count - len(self.lines)} earlier lines not kept\n" + body
        return "\n".join([body, *self.diffs]).strip("\n")
