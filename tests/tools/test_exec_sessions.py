"""exec_command / write_stdin: Codex unified-exec formats and PTY sessions."""

from __future__ import annotations

import re
from pathlib import Path

from shellkit import Shell, drive

HEADER = re.compile(r"^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n")


def test_quick_command_exits(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        return (await s.call("exec_command", {"cmd": "echo hello", "yield_time_ms": 2000})).content

    out = drive(Shell(tmp_path), body)
    assert HEADER.match(out)
    assert out.split("\n", 2)[2] == "Process exited with code 0\nOriginal token count: 2\nOutput:\nhello\n"


def test_interactive_pty_session(tmp_path: Path) -> None:
    async def body(s: Shell) -> tuple[str, str, str]:
        first = (await s.call("exec_command", {"cmd": "read -r name; echo \"hi $name\"; sleep 30", "tty": True,
                                                "yield_time_ms": 300})).content
        sid = int(re.search(r"Process running with session ID (\d+)", first).group(1))
        second = (await s.call("write_stdin", {"session_id": sid, "chars": "bob\n", "yield_time_ms": 500})).content
        gone = await s.call("write_stdin", {"session_id": 424242, "chars": ""})
        return first, second, gone.content

    first, second, gone = drive(Shell(tmp_path), body)
    assert "Process running with session ID" in first
    assert "hi bob" in second
    assert gone == "write_stdin failed: Unknown process id 424242"


def test_pipes_mode_has_closed_stdin(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        first = (await s.call("exec_command", {"cmd": "sleep 30", "yield_time_ms": 250})).content
        sid = int(re.search(r"session ID (\d+)", first).group(1))
        return (await s.call("write_stdin", {"session_id": sid, "chars": "x"})).content

    out = drive(Shell(tmp_path), body)
    assert out == "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"


def test_truncation_reports_original_tokens(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        cmd = "python3 -c \"print('x' * 4000)\""
        return (await s.call("exec_command", {"cmd": cmd, "yield_time_ms": 3000, "max_output_tokens": 100})).content

    out = drive(Shell(tmp_path), body)
    assert "Original token count: 1001" in out
    assert "tokens truncated" in out


def test_session_cap_prunes_oldest(tmp_path: Path) -> None:
    async def body(s: Shell) -> int:
        for _ in range(12):
            await s.call("exec_command", {"cmd": "sleep 30", "yield_time_ms": 250})
        return len(s.ctx.state["shell.runtime"].sessions.sessions)

    assert drive(Shell(tmp_path, max_sessions=10), body) == 10
