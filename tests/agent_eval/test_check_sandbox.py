"""bench/agent_eval: the exercise's own check runs in aiagent's sandbox.

A hostile check cannot write outside its work folder (nor to ``$HOME``) nor reach the
network; the same check run with ``--unsandboxed-checks`` does (so these tests fail if the
sandbox is taken away); a check that hangs is killed at its limit with everything it
started; without any sandbox on the machine the run refuses in one line unless
``--unsandboxed-checks``, and every result says how its check ran.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_agent_eval import SCRIPT, oracle, run_harness
from tests.agent_eval.evalkit import result_rows

from aiagent.infra import sandbox
from aiagent.testing import FakeLLM, Turn

BENCH = SCRIPT.parent
# the harness with detect() answering "no sandbox here", as on a machine without bwrap or Landlock
NO_SANDBOX = ("import runpy, sys; from aiagent.infra import sandbox; "
              "sandbox.detect = lambda backend='auto': sandbox.SandboxInfo('none', "
              "'bubblewrap: the bwrap program is not installed; landlock: the kernel offers no Landlock', 'none'); "
              "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")


def _need(backend: str) -> None:
    sandbox.detect.cache_clear()
    info = sandbox.detect(backend)
    if not info.available:
        pytest.skip(f"needs the {backend} sandbox: {info.detail}")


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bool]]]:
    """A loopback TCP server; the list gets an entry for each connection it accepted."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.2)
    accepted: list[bool] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                continue
            accepted.append(True)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(2)
    server.close()


def _task(root: Path, name: str, script: str) -> Path:
    """A Terminal-Bench style task whose check is ``script``; the folder of all tasks."""
    folder = root / "tasks" / name
    folder.mkdir(parents=True)
    (folder / "task.yaml").write_text("instruction: Do nothing.\n")
    (folder / "run-tests.sh").write_text("#!/usr/bin/env bash\n" + script)
    return root


def _silent(body: dict[str, object]) -> Turn:
    return Turn(text="")


@pytest.mark.parametrize("way", ["bubblewrap", "landlock", "unsandboxed"])
def test_a_hostile_check_writes_only_in_its_work_folder(fake_env: Callable[[FakeLLM], dict[str, str]],
                                                        tmp_path: Path, listener: tuple[int, list[bool]],
                                                        way: str) -> None:
    if way != "unsandboxed":
        _need(way)
    port, accepted = listener
    outside = tmp_path / "outside.txt"  # beside the run's folder, under the host's /tmp
    script = (f"echo ran > inside.txt\n"
              f"echo pwned > {outside} 2>/dev/null\n"
              f"echo pwned > \"$HOME/pwned.txt\" 2>/dev/null\n"
              f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\" "
              f"2>/dev/null\nexit 0\n")
    tasks = _task(tmp_path / "bench", "hostile", script)
    flag = ["--unsandboxed-checks"] if way == "unsandboxed" else ["--check-sandbox", way]
    with FakeLLM(responder=_silent) as fake:
        env = fake_env(fake)
        proc = run_harness(env, tmp_path / "out", "--attempts", "1", *flag, tasks=tasks)
    assert proc.stdout.strip().splitlines()[-1] == "pass rate: 1/1", proc.stdout + proc.stderr
    assert (tmp_path / "out" / "work" / "tasks" / "hostile" / "inside.txt").read_text() == "ran\n"
    home_file = Path(env["HOME"]) / "pwned.txt"
    row = result_rows(tmp_path / "out")["tasks/hostile"]
    if way == "unsandboxed":  # the control: the same check, unconfined, does all of it
        assert outside.exists() and home_file.exists() and accepted
        assert row["checks"] == "unsandboxed (--unsandboxed-checks)"
        assert "checks: unsandboxed (--unsandboxed-checks)" in proc.stdout
        return
    assert not outside.exists() and not home_file.exists()
    assert not accepted, "the check reached a loopback server"
    assert row["checks"] == f"sandboxed: {way}"
    assert f"checks: sandboxed: {way}" in proc.stdout and f"checks: sandboxed: {way} (" in proc.stderr


def _alive(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(pid))
    return found


@pytest.mark.parametrize("backend", ["bubblewrap", "landlock"])
def test_a_check_that_hangs_is_killed_with_its_children(fake_env: Callable[[FakeLLM], dict[str, str]],
                                                        tmp_path: Path, backend: str) -> None:
    _need(backend)
    marker = f"{os.getpid() % 1000}{time.monotonic_ns() % 100000:05d}"  # unique sleep digits
    script = (f"(sleep 4.{marker}; echo late > late-child.txt) &\n"
              f"setsid bash -c 'sleep 4.{marker}; echo late > late-session.txt' &\n"
              f"sleep 300.{marker}\n")
    tasks = _task(tmp_path / "bench", "hang", script)
    prompts: list[str] = []

    def record(body: dict[str, object]) -> Turn:
        messages = body.get("messages") or []
        prompts.append(str(messages[-1]))  # type: ignore[index]
        return Turn(text="")

    with FakeLLM(responder=record) as fake:
        started = time.monotonic()
        proc = run_harness(fake_env(fake), tmp_path / "out", "--check-timeout", "2", "--check-sandbox", backend,
                           tasks=tasks)
        elapsed = time.monotonic() - started
    assert proc.stdout.strip().splitlines()[-1] == "pass rate: 0/1", proc.stdout + proc.stderr
    assert elapsed < 120
    assert "the check timed out after 2s; its processes were killed" in prompts[-1]
    assert _alive(marker) == []
    time.sleep(5)  # past the background sleeps: had they survived, they would have written
    work = tmp_path / "out" / "work" / "tasks" / "hang"
    assert not (work / "late-child.txt").exists() and not (work / "late-session.txt").exists()


def _harness_without_sandbox(env: dict[str, str], out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_SANDBOX, str(SCRIPT), "--tasks",
                           str(SCRIPT.parents[2] / "tests" / "agent_eval" / "exercises"), "--out", str(out),
                           "--provider", "openai", "--model", "fake", "--max-turns", "4", "--timeout", "60",
                           "--languages", "python", "--limit", "1", *args],
                          env=env, capture_output=True, text=True, timeout=300)


def test_without_a_sandbox_the_run_refuses_unless_told(fake_env: Callable[[FakeLLM], dict[str, str]],
                                                       tmp_path: Path) -> None:
    with FakeLLM(responder=oracle) as fake:
        refused = _harness_without_sandbox(fake_env(fake), tmp_path / "out")
        asked = len(fake.requests)
        created = (tmp_path / "out" / "results.sqlite").exists()
        told = _harness_without_sandbox(fake_env(fake), tmp_path / "out", "--unsandboxed-checks")
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert refused.stderr.startswith("agent_eval: error: no sandbox for the checks on this machine (bubblewrap:")
    assert "pass --unsandboxed-checks" in refused.stderr
    assert asked == 0 and not created
    assert told.returncode == 0, told.stderr
    assert told.stdout.strip().splitlines()[-2:] == ["checks: unsandboxed (--unsandboxed-checks)", "pass rate: 1/1"]
    assert [r["checks"] for r in result_rows(tmp_path / "out").values()] == ["unsandboxed (--unsandboxed-checks)"]


def test_an_older_results_file_says_its_checks_ran_unsandboxed(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    db = sqlite3.connect(tmp_path / "results.sqlite")
    db.execute("""CREATE TABLE result (key TEXT PRIMARY KEY, language TEXT NOT NULL, passed INTEGER NOT NULL,
        attempts INTEGER NOT NULL, turns INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL, cost_usd REAL, seconds REAL NOT NULL, status TEXT NOT NULL,
        exits TEXT NOT NULL, run TEXT NOT NULL)""")
    db.execute("INSERT INTO result VALUES ('python/leap', 'python', 1, 1, 2, 10, 5, NULL, 1.0, 'passed', '[0]', "
               "'openai/fake')")
    db.commit()
    db.close()
    monkeypatch.syspath_prepend(str(BENCH))
    from results import Results  # type: ignore[import-not-found]  # bench/agent_eval, put on the path above

    results = Results(tmp_path / "results.sqlite", "openai/fake")
    try:
        assert [r["checks"] for r in results.rows()] == ["unsandboxed"]
    finally:
        results.close()


def test_the_report_says_when_a_resumed_run_mixes_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    from run import checks_summary  # type: ignore[import-not-found]

    rows = [{"checks": "sandboxed: bubblewrap"}] * 3 + [{"checks": "unsandboxed (--unsandboxed-checks)"}]
    assert checks_summary(rows) == "checks: mixed: 3 sandboxed: bubblewrap, 1 unsandboxed (--unsandboxed-checks)"
    assert checks_summary(rows[:3]) == "checks: sandboxed: bubblewrap"
