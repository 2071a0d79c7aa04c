"""Shell details: inactivity, cancel, live output, jobs, formats and truncation."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from shellkit import Shell, drive

from aiagent.agent.tools.shell.capture import Capture
from aiagent.agent.tools.shell.tools import split_background, wall_seconds
from aiagent.agent.tools.shell.truncate import formatted_truncate, truncate_middle


def test_inactivity_timeout_and_activity_extends_it(tmp_path: Path) -> None:
    async def body(s: Shell):
        quiet, took = await s.timed("shell_command", {"command": "echo start; sleep 30"})
        busy = await s.call("shell_command", {"command": "for i in 1 2 3 4 5 6; do echo $i; sleep 0.3; done"})
        return quiet.content, took, busy.content

    quiet, took, busy = drive(Shell(tmp_path, inactivity_timeout=0.8), body)
    assert took < 3 and quiet.startswith("Exit code: 124\n") and "no output for too long" in quiet
    assert busy.startswith("Exit code: 0\n") and busy.endswith("6\n")


def test_cancel_kills_and_reports(tmp_path: Path) -> None:
    async def body(s: Shell):
        asyncio.get_running_loop().call_later(0.4, s.ctx.cancel.set)
        return await s.timed("shell", {"command": ["sleep", "30"]})

    result, took = drive(Shell(tmp_path, result="minimal"), body)
    assert took < 3
    assert json.loads(result.content)["canceled"] is True


def test_live_output_arrives_before_the_end(tmp_path: Path) -> None:
    stamps: list[float] = []

    async def body(s: Shell):
        s.ctx.emit = lambda e: stamps.append(time.monotonic())
        start = time.monotonic()
        await s.call("shell_command", {"command": "echo first; sleep 1; echo second"})
        return start

    start = drive(Shell(tmp_path), body)
    assert stamps and stamps[0] - start < 0.6


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_job_output_returns_only_new_output(tmp_path: Path) -> None:
    async def body(s: Shell):
        started = await s.call("shell", {"command": ["bash", "-c", "echo one; sleep 0.6; echo two; sleep 30"],
                                         "run_in_background": True})
        await asyncio.sleep(1.0)
        first = await s.call("job_output", {"job_id": 1})
        again = await s.call("job_output", {"job_id": 1})
        missing = await s.call("job_output", {"job_id": 9})
        killed = await s.call("job_kill", {"job_id": 1})
        listing = await s.call("job_list", {})
        pid = int(started.content.split("(pid ", 1)[1].split(")", 1)[0])
        return started.content, first.content, again.content, missing, killed.content, listing.content, pid

    started, first, again, missing, killed, listing, pid = drive(Shell(tmp_path, job_start_wait=0.3), body)
    assert started.startswith("Started background job 1 (pid ") and "one" in started
    assert first.endswith("Output:\ntwo\n") and "running" in first
    assert again.endswith("(no new output)")
    assert missing.is_error and "unknown job id 9" in missing.content
    assert killed == f"Job 1 (pid {pid}) stopped."
    assert not _alive(pid), f"job 1 (pid {pid}) still runs after job_kill"
    assert "killed" in listing


def test_json_and_freeform_formats(tmp_path: Path) -> None:
    async def body(s: Shell):
        a = await s.call("shell", {"command": ["bash", "-c", "echo out; echo err >&2; exit 5"]})
        b = await s.call("shell", {"command": ["definitely-not-a-command-xyz"]})
        return a.content, b

    out, missing = drive(Shell(tmp_path), body)
    payload = json.loads(out)
    assert payload["output"] == "out\nerr\n" and payload["metadata"]["exit_code"] == 5
    assert out.startswith('{"output":"out\\nerr\\n","metadata":{"exit_code":5,"duration_seconds":')
    assert missing.is_error and missing.content.startswith("execution error: No such file or directory")


def test_trailing_ampersand() -> None:
    assert split_background("npm run dev &") == ("npm run dev", True)
    assert split_background("a && b") == ("a && b", False)
    assert split_background("echo x >&") == ("echo x >&", False)
    assert split_background("&") == ("&", False)


def test_wall_seconds_like_codex() -> None:
    assert [wall_seconds(x) for x in (0.01, 0.26, 1.0, 12.34)] == ["0", "0.3", "1", "12.3"]


def test_truncation_golden() -> None:
    text = "".join(f"{i:03}\n" for i in range(1, 21))  # 80 bytes
    assert truncate_middle(text, 100) == text
    assert truncate_middle(text, 8) == "001\n002\n003\n004\n…12 tokens truncated…017\n018\n019\n020\n"
    assert formatted_truncate(text, 8).startswith(
        "Warning: truncated output (original token count: 20)\nTotal output lines: 20\n\n001\n")
    assert truncate_middle("😀" * 10, 3) == "😀…7 tokens truncated…😀"


def test_capture_is_bounded(tmp_path: Path) -> None:
    cap = Capture(tmp_path / "log", 10, 10, 25)
    for i in range(10):
        cap.add(f"{i}abcd".encode())
    assert cap.total == 50 and len(cap.head) == 10 and len(cap.tail) == 10
    assert (tmp_path / "log").stat().st_size == 25
    assert "[… 30 bytes not kept in memory …]" in cap.text()
    data, pos, lost = cap.read_since(0, 100)
    assert pos == 50 and lost == 15 and data.endswith(b"8abcd9abcd")
