"""The torture suite: every command returns within its timeout + 2 s and leaves nothing alive."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from shellkit import Shell, alive, drive, pids_in, running_in

PY = sys.executable


def run_cmd(tmp: Path, command: str, limit: float, **settings: object) -> tuple[str, float, Shell]:
    shell = Shell(tmp, **settings)

    async def body(s: Shell) -> tuple[str, float]:
        result, took = await s.timed("shell_command", {"command": command, **({"timeout_ms": 1500} if limit else {})})
        return result.content, took

    content, took = drive(shell, body)
    return content, took, shell


def test_server_that_never_exits(tmp_path: Path) -> None:
    script = f"echo $$ > pids; {PY} -c 'import time; print(\"listening\", flush=True); time.sleep(1000)'"
    content, took, _ = run_cmd(tmp_path, script, 1.5)
    assert took < 1.5 + 2
    assert content.startswith("Exit code: 124\n")
    assert "command timed out after" in content and "listening" in content
    assert alive(pids_in(tmp_path / "pids")) == []


def test_background_child_holding_the_pipe(tmp_path: Path) -> None:
    content, took, _ = run_cmd(tmp_path, "sleep 100 & echo $! > pids; echo hi", 0)
    assert took < 2
    assert content.startswith("Exit code: 0\n") and "\nhi\n" in content
    assert alive(pids_in(tmp_path / "pids")) == []


def test_command_waiting_on_stdin(tmp_path: Path) -> None:
    content, took, _ = run_cmd(tmp_path, "read line; echo \"got [$line]\"; cat", 0)
    assert took < 2
    assert content.startswith("Exit code: 0\n") or content.startswith("Exit code: 1\n")


def test_endless_output_is_bounded(tmp_path: Path) -> None:
    content, took, _ = run_cmd(tmp_path, "echo $$ > pids; yes", 1.5, max_output_tokens=500, log_max_bytes=1_000_000)
    assert took < 1.5 + 2
    assert "Exit code: 124" in content and "tokens truncated" in content
    assert len(content) < 4000
    log = Path(content.rsplit("[full output: ", 1)[1].rstrip("]"))
    assert not log.exists()  # temporary logs are removed when the run ends
    assert alive(pids_in(tmp_path / "pids")) == []


def test_process_ignoring_sigterm(tmp_path: Path) -> None:
    script = "trap '' TERM; echo $$ > pids; sleep 100 & echo $! >> pids; wait"
    content, took, _ = run_cmd(tmp_path, script, 1.5)
    assert took < 1.5 + 2
    assert "Exit code: 124" in content
    assert alive(pids_in(tmp_path / "pids")) == []


DAEMON = textwrap.dedent(
    """
    import os, sys, time
    if os.fork():
        sys.exit(0)
    os.setsid()
    if os.fork():
        sys.exit(0)
    with open("pids", "w") as f:
        f.write(str(os.getpid()))
    for fd in (0, 1, 2):
        os.close(fd)
    time.sleep(100)
    """
)


def test_double_forked_daemon(tmp_path: Path) -> None:
    (tmp_path / "daemon.py").write_text(DAEMON)
    content, took, _ = run_cmd(tmp_path, f"{PY} daemon.py; echo launched", 0)
    assert took < 3
    assert "launched" in content
    # the daemon may be ended before it writes its pid: then no process may run in its folder
    assert alive(pids_in(tmp_path / "pids", may_be_missing=True)) == []
    assert running_in(tmp_path) == []


CHAIN = textwrap.dedent(
    """
    import os, sys, time
    depth = int(sys.argv[1])
    with open("pids", "a") as f:
        f.write(f"{os.getpid()}\\n")
    if depth > 0 and os.fork() == 0:
        os.execv(sys.executable, [sys.executable, __file__, str(depth - 1)])
    time.sleep(100)
    """
)


def test_deep_fork_chain(tmp_path: Path) -> None:
    (tmp_path / "chain.py").write_text(CHAIN)
    content, took, _ = run_cmd(tmp_path, f"{PY} chain.py 12", 1.5)
    assert took < 1.5 + 2
    pids = pids_in(tmp_path / "pids")
    assert len(pids) >= 2
    assert alive(pids) == []


def test_foreground_server_moves_to_background_then_dies_at_shutdown(tmp_path: Path) -> None:
    shell = Shell(tmp_path, background_after=1.0)

    async def body(s: Shell) -> None:
        result, took = await s.timed("shell_command", {"command": "echo $$ > pids; echo ready; sleep 100"})
        assert took < 3
        assert "moved to the background as job 1" in result.content and "ready" in result.content
        listing = (await s.call("job_list", {})).content
        assert "running" in listing
        assert alive(pids_in(tmp_path / "pids"))

    drive(shell, body)
    assert alive(pids_in(tmp_path / "pids")) == []


def test_kept_jobs_survive_shutdown(tmp_path: Path) -> None:
    shell = Shell(tmp_path, keep_jobs=True)

    async def body(s: Shell) -> None:
        result = await s.call("shell_command", {"command": "echo $$ > pids; sleep 30 &"})
        assert result.content.startswith("Started background job 1")

    drive(shell, body)
    pids = pids_in(tmp_path / "pids")
    try:
        assert alive(pids) == pids
    finally:
        import os
        import signal

        os.killpg(pids[0], signal.SIGKILL)


def test_minimal_result_contract(tmp_path: Path) -> None:
    shell = Shell(tmp_path, result="minimal")

    async def body(s: Shell) -> list[dict]:
        out = []
        for args in ({"command": "echo ok"}, {"command": "exit 4"}, {"command": "sleep 5", "timeout_ms": 300}):
            out.append(json.loads((await s.call("shell_command", args)).content))
        return out

    ok, failed, timed = drive(shell, body)
    assert ok == {"status": "success", "exit_code": 0, "timed_out": False, "canceled": False, "reason": None}
    assert failed == {"status": "failed", "exit_code": 4, "timed_out": False, "canceled": False, "reason": "non_zero_exit"}
    assert timed["status"] == "failed" and timed["timed_out"] is True and timed["reason"] == "timeout"
    assert any(e.chunk == "ok\n" for e in shell.events)
