"""The turn view rendered to text: Markdown, tool headers and summaries, diffs, 60 columns."""

from __future__ import annotations

import asyncio
import io

from aiagent.contracts.events import (
    DoneEvent,
    ErrorEvent,
    FileDiffEvent,
    RetryEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from aiagent.contracts.messages import Usage
from aiagent.frontends.tui.render import make_console
from aiagent.frontends.tui.terminal import TermInfo
from aiagent.frontends.tui.view import PlainView, TurnView

TERM = TermInfo(tty=False, color=False, dark=True, width=60)
ANSWER = "# Plan\n\nI will **fix** it:\n\n1. read\n2. edit\n\n```python\nx = 1\n```\n\nDone."
DIFF = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


def events() -> list[object]:
    out: list[object] = [TextDeltaEvent(ANSWER[i : i + 4]) for i in range(0, len(ANSWER), 4)]
    out += [
        TurnEndEvent(1, "tool_use"),
        ToolCallEvent("t1", "shell_command", {"command": "pytest -q " + "x" * 80}),
        ToolOutputEvent("t1", "stdout", "collected 3 items\n..."),
        ToolOutputEvent("t1", "stdout", ".\n3 passed\nmore\nand more\n"),
        ToolResultEvent("t1", "shell_command", "exit 0", False),
        ToolCallEvent("t2", "edit", {"file_path": "a.py"}),
        FileDiffEvent("t2", "a.py", DIFF),
        ToolResultEvent("t2", "edit", "Edited a.py", False),
        ToolCallEvent("t3", "read_file", {"file_path": "missing.py"}),
        ToolResultEvent("t3", "read_file", "no such file: missing.py", True),
        RetryEvent("overloaded", 1, 0.5),
        ErrorEvent("provider said no", 3),
        DoneEvent("interrupted", "", 2, Usage(), 130),
    ]
    return out


def rendered() -> str:
    console = make_console(TERM, file=io.StringIO(), width=60)
    view = TurnView(console, TERM)
    for event in events():
        view.handle(event)  # type: ignore[arg-type]
    asyncio.run(view.stop())
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_turn_renders_within_60_columns() -> None:
    text = rendered()
    assert all(len(line) <= 60 for line in text.splitlines()), text


def test_markdown_tools_and_diffs_are_shown() -> None:
    lines = [line.rstrip() for line in rendered().splitlines()]
    text = "\n".join(lines)
    assert "Plan" in text and "I will fix it:" in text and "x = 1" in text and "Done." in text
    assert "**" not in text and "```" not in text
    assert any(line.startswith("● shell_command pytest -q xxx") and line.endswith("…")
               for line in lines)
    assert "  ⎿  collected 3 items" in text and "… +2 lines (ctrl-o to expand)" in text
    assert "● edit a.py" in text and "a.py  +1 -1" in text and "    +x = 2" in text
    assert "no such file: missing.py" in text
    assert "↻ overloaded; retrying (attempt 1)" in text
    assert "✗ provider said no" in text and "■ interrupted" in text


def test_full_output_is_kept_for_ctrl_o() -> None:
    console = make_console(TERM, file=io.StringIO(), width=60)
    view = TurnView(console, TERM)
    for event in events():
        view.handle(event)  # type: ignore[arg-type]
    block = view.finished[0]
    assert block.full_text() == "collected 3 items\n....\n3 passed\nmore\nand more"


def test_plain_view_writes_lines() -> None:
    out = io.StringIO()
    view = PlainView(out)
    for event in events():
        view.handle(event)  # type: ignore[arg-type]
    asyncio.run(view.stop())
    text = out.getvalue()
    assert text.startswith(ANSWER)
    assert "→ shell_command pytest -q" in text and "← shell_command: exit 0" in text
    assert "+x = 2" in text and "✗ read_file: no such file" in text
    assert "\x1b[" not in text
