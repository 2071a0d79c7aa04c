"""run_collected and spawn(stdin_pipe=True): the runner paths used by ripgrep, git and
process skills, against real processes."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from aiagent.infra.process.capture import Capture
from aiagent.infra.process.collect import run_collected
from aiagent.infra.process.runner import Limits, new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_every_byte_of_each_stream_is_kept_apart(tmp_path: Path) -> None:
    script = ("import sys; sys.stdout.buffer.write(bytes(range(256)) * 1024); "
              "sys.stderr.write('warn'); sys.exit(3)")
    done = asyncio.run(run_collected([sys.executable, "-c", script], cwd=tmp_path, timeout=20))
    assert done.exit_code == 3 and not done.timed_out and not done.truncated
    assert done.stdout == bytes(range(256)) * 1024  # 256 KiB, non-UTF-8 bytes intact
    assert done.stderr == b"warn"


def test_output_past_the_cap_is_dropped_and_flagged(tmp_path: Path) -> None:
    done = asyncio.run(run_collected(["printf", "abcdef"], cwd=tmp_path, timeout=20, max_bytes=4))
    assert (done.stdout, done.truncated, done.exit_code) == (b"abcd", True, 0)


def test_time_limit_kills_the_tree_and_says_so(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    script = f"setsid sleep 60 & echo $! > {pidfile}; sleep 60"
    start = time.monotonic()
    done = asyncio.run(run_collected(["sh", "-c", script], cwd=tmp_path, timeout=0.5))
    took = time.monotonic() - start
    assert done.timed_out and 0.5 <= took < 5.0, took
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild), "the setsid grandchild outlived the time limit"


def test_stdin_pipe_carries_a_conversation(tmp_path: Path) -> None:
    async def go() -> tuple[bytes, int | None]:
        got = bytearray()
        env = {**os.environ, TAG_VARIABLE: new_tag()}
        running = await spawn(["cat"], cwd=tmp_path, env=env, capture=Capture(None, 0, 0, 0),
                              stdin_pipe=True, on_data=lambda _name, data: got.extend(data))
        assert running.stdin is not None
        running.stdin.write(b"ping\n")
        await running.stdin.drain()
        deadline = time.monotonic() + 5
        while got != b"ping\n" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        running.stdin.close()  # end of input: cat exits
        outcome = await running.supervise(Limits(timeout=5))
        return bytes(got), outcome.exit_code

    assert asyncio.run(go()) == (b"ping\n", 0)


def test_without_stdin_pipe_the_child_reads_dev_null(tmp_path: Path) -> None:
    done = asyncio.run(run_collected(["cat"], cwd=tmp_path, timeout=5))
    assert (done.exit_code, done.stdout, done.timed_out) == (0, b"", False)


def test_stdin_bytes_reach_the_child_and_a_child_that_reads_none_does_not_block(tmp_path: Path) -> None:
    data = b"payload \xff\n" * 200_000  # 2 MB: far past a pipe's buffer
    echoed = asyncio.run(run_collected(["cat"], cwd=tmp_path, timeout=20, stdin=data))
    assert echoed.exit_code == 0 and echoed.stdout == data
    started = time.monotonic()
    ignored = asyncio.run(run_collected(["true"], cwd=tmp_path, timeout=20, stdin=data))
    assert ignored.exit_code == 0 and time.monotonic() - started < 10
