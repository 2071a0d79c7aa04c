"""Control sequences in model text and tool output never reach the terminal raw.

The real ``aiagent --headless`` against FakeLLM, read byte for byte from a pipe and from a
pty; the TUI's turn view rendered with colour on a terminal console. Legitimate text
(accents, CJK, emoji, tabs, newlines) passes unchanged; JSON keeps the exact text."""

from __future__ import annotations

import asyncio
import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aiagent.frontends.terminal_text import neutralise
from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))

HOSTILE = {
    "osc52 clipboard": "\x1b]52;c;ZWNobyBwd25lZA==\x07",
    "osc0 title": "\x1b]0;pwned-title\x07",
    "osc2 title, ST": "\x1b]2;pwned-title-2\x1b\\",
    "osc8 link": "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "csi clear": "\x1b[2J\x1b[3J\x1b[H",
    "csi cursor": "\x1b[7777A\x1b[2K",
    "dcs": "\x1bP1$qm\x1b\\",
    "c1 csi": "\u009b2J",
    "c1 osc": "\u009d0;c1-title\u0007",
    "lone esc": "a\x1bb",
    "bel": "ding\x07",
    "backspace": "rm -rf /\x08\x08\x08\x08\x08\x08\x08\x08ls     ",
    "carriage return": "evil command\rsafe",
}
LEGIT = "héllo wörld — 日本語 🎉👍🏽 a\tb\nsecond line"
ANSWER = "Answer: " + " | ".join(HOSTILE.values()) + "\n" + LEGIT
NARRATION = "Looking " + HOSTILE["osc52 clipboard"] + HOSTILE["csi clear"]
RAW_MARKERS = [b"\x1b]52", b"\x1b]0;", b"\x1b]2;", b"\x1b]8;", b"\x1b[2J", b"\x1b[3J", b"\x1b[7777A",
               b"\x1bP", b"\xc2\x9b", b"\xc2\x9d", b"\x07", b"\x08"]


def _script(cwd: Path) -> list[Turn]:
    """A tool call whose real command prints every sequence, then the hostile answer."""
    octal = "".join(f"\\{b:03o}" for b in "".join(HOSTILE.values()).encode())
    command = f"printf '{octal}'"
    return [Turn(text=NARRATION, tool_calls=[ToolCall("shell_command", {"command": command})]),
            Turn(text=ANSWER, text_chunks=9)]


def _env(clean_env: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    return {**clean_env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def _assert_clean(data: bytes) -> None:
    for marker in RAW_MARKERS:
        assert marker not in data, (marker, data)
    assert b"\x1b" not in data  # headless output has no styling of its own
    assert re.search(rb"\r(?!\n)", data) is None  # no carriage return that overwrites


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([AIAGENT, *args], env=env, cwd=cwd, capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=60)


def test_headless_text_into_a_pipe(clean_env: dict[str, str], tmp_path: Path) -> None:
    with FakeLLM(_script(tmp_path)) as fake:
        proc = _run(["--headless", "--tools", "shell_command", "-p", "go"], _env(clean_env, fake), tmp_path)
    assert proc.returncode == 0, proc.stderr
    _assert_clean(proc.stdout)
    _assert_clean(proc.stderr)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert out == neutralise(ANSWER) + "\n"
    assert LEGIT in out  # unicode, emoji, tab and newline unchanged
    assert "^[]52;c;ZWNobyBwd25lZA==^G" in out and "\\x9b2J" in out  # visible, not executed
    assert "evil command\nsafe" in out
    assert "Looking ^[]52;c;ZWNobyBwd25lZA==^G^[[2J" in err  # narration on stderr
    assert "^[]0;pwned-title^G" in err  # the command's live output on stderr


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_headless_markdown_and_json(clean_env: dict[str, str], tmp_path: Path, fmt: str) -> None:
    with FakeLLM(_script(tmp_path)) as fake:
        proc = _run(["--headless", "--tools", "shell_command", "-o", fmt, "-p", "go"],
                    _env(clean_env, fake), tmp_path)
    assert proc.returncode == 0, proc.stderr
    _assert_clean(proc.stdout)
    _assert_clean(proc.stderr)
    if fmt == "json":  # the exact text survives, escaped by JSON
        data = json.loads(proc.stdout)
        assert data["answer"] == ANSWER
        assert data["tool_calls"][0]["result"].count("\x1b]52;c;") == 1
    else:
        assert LEGIT in proc.stdout.decode()
        assert "^[]52;c;" in proc.stdout.decode()


def _read_pty(master: int, proc: subprocess.Popen[bytes], deadline: float) -> bytes:
    chunks = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    return b"".join(chunks)


def test_headless_on_a_pty(clean_env: dict[str, str], tmp_path: Path) -> None:
    """On a terminal the answer streams live, delta by delta: still nothing raw."""
    with FakeLLM(_script(tmp_path)) as fake:
        master, slave = pty.openpty()
        proc = subprocess.Popen([AIAGENT, "--headless", "--tools", "shell_command", "-p", "go"],
                                env={**_env(clean_env, fake), "TERM": "xterm-256color"}, cwd=tmp_path,
                                stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
        os.close(slave)
        data = _read_pty(master, proc, time.monotonic() + 60)
        assert proc.wait(timeout=30) == 0, data
        os.close(master)
    _assert_clean(data)
    text = data.decode().replace("\r\n", "\n")
    assert LEGIT in text
    assert "^[]52;c;ZWNobyBwd25lZA==^G" in text and "^[[7777A" in text and "^[P1$qm^[\\" in text


def test_tui_turn_view_keeps_its_styling_and_drops_raw_sequences() -> None:
    from aiagent.contracts.events import (
        DoneEvent,
        FileDiffEvent,
        TextDeltaEvent,
        ToolCallEvent,
        ToolOutputEvent,
        ToolResultEvent,
        TurnEndEvent,
    )
    from aiagent.contracts.messages import Usage
    from aiagent.frontends.tui.render import make_console
    from aiagent.frontends.tui.terminal import TermInfo
    from aiagent.frontends.tui.view import TurnView

    term = TermInfo(tty=True, color=True, dark=True, width=100)
    console = make_console(term, file=io.StringIO(), width=100)
    view = TurnView(console, term)
    evil = "".join(HOSTILE.values())
    events = [TextDeltaEvent(ANSWER[i:i + 5]) for i in range(0, len(ANSWER), 5)]
    events += [TurnEndEvent(1, "tool_use"),
               ToolCallEvent("t1", "shell_command", {"command": "echo " + evil}),
               ToolOutputEvent("t1", "stdout", evil + "\n"),
               ToolResultEvent("t1", "shell_command", evil, False),
               ToolCallEvent("t2", "edit", {"file_path": "a.py"}),
               FileDiffEvent("t2", "a.py", f"--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+{evil}\n"),
               ToolResultEvent("t2", "edit", "Edited a.py", False),
               DoneEvent("completed", ANSWER, 2, Usage(), 0)]
    for event in events:
        view.handle(event)  # type: ignore[arg-type]
    asyncio.run(view.stop())
    data = console.file.getvalue().encode()  # type: ignore[attr-defined]
    for marker in RAW_MARKERS:
        assert marker not in data, marker
    assert b"\x1b[1m" in data or b"\x1b[32m" in data  # our own styling is still there
    styled = re.sub(r"\x1b\[[0-9;]*m", "", data.decode())  # SGR only: colours and bold
    assert "\x1b" not in styled
    assert "日本語 🎉👍🏽" in styled and "^[]52;c;ZWNobyBwd25lZA==^G" in styled


def test_replayed_history_is_neutralised_too() -> None:
    from aiagent.frontends.tui.render import make_console, markdown, notice, user_echo
    from aiagent.frontends.tui.terminal import TermInfo

    term = TermInfo(tty=True, color=True, dark=True, width=100)
    console = make_console(term, file=io.StringIO(), width=100)
    for renderable in (markdown(ANSWER, term), notice(HOSTILE["osc0 title"]),
                       user_echo(HOSTILE["osc52 clipboard"])):
        console.print(renderable)
    data = console.file.getvalue().encode()  # type: ignore[attr-defined]
    assert not any(marker in data for marker in RAW_MARKERS)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_sequence_is_made_visible(name: str) -> None:
    shown = neutralise(HOSTILE[name])
    assert not any(ch in shown for ch in "\x1b\x07\x08\r\u009b\u009d")
    assert shown != HOSTILE[name]


def test_legitimate_text_is_unchanged() -> None:
    assert neutralise(LEGIT) == LEGIT
    assert neutralise("windows line\r\nend") == "windows line\nend"
