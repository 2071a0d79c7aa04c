"""No process a command starts may outlive it: not one that calls ``setsid`` with a cleared
environment, not a double-forked daemon, not after a timeout, a cancel, the end of the run
or a ``kill -9`` of the agent itself. Survivors are looked for in ``/proc`` by a marker
unique to each test, carried in their command line."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from shellkit import Shell, drive

from aiagent.testing import FakeLLM, ToolCall, Turn

if not sys.platform.startswith("linux"):
    pytest.skip("needs Linux: the reaper uses prctl(PR_SET_CHILD_SUBREAPER)", allow_module_level=True)

PY = sys.executable
AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def survivors(marker: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                if marker.encode() not in handle.read():
                    continue
            with open(f"/proc/{name}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except OSError:
            continue
        found.append(int(name))
    return found


def gone_within(marker: str, seconds: float = 2.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def wait_for(marker: str, count: int, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while len(survivors(marker)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(survivors(marker)) >= count, f"the escapees never started ({marker})"


def escapes(marker: str) -> str:
    """A setsid'ed sleeper and a classic double-forked daemon, both with an empty environment
    (so the environment tag of the fallback path cannot find them)."""
    sleeper = f"env -i setsid {PY} -c 'import time; time.sleep(300)' {marker}-setsid"
    daemon = (f"env -i {PY} -c 'import os, time\nif os.fork(): os._exit(0)\nos.setsid()\n"
              f"if os.fork(): os._exit(0)\ntime.sleep(300)' {marker}-daemon")
    return f"{sleeper} & {daemon}; "


@pytest.fixture
def marker() -> str:
    mark = f"orphan-{uuid.uuid4().hex}"
    yield mark
    for pid in survivors(mark):  # never leave a failed test's processes behind
        os.kill(pid, signal.SIGKILL)


def test_escapees_die_when_the_command_ends(tmp_path: Path, marker: str) -> None:
    async def body(s: Shell) -> str:
        script = escapes(marker) + f"while [ $(ps -ewwo args | grep -c {marker}) -lt 3 ]; do sleep 0.05; done; echo ok"
        result = await s.call("shell_command", {"command": script, "timeout_ms": 20_000})
        left = survivors(marker)
        return result.content + f"\n[survivors right after: {left}]"

    out = drive(Shell(tmp_path), body)
    assert "Exit code: 0" in out and "\nok\n" in out
    assert "stopped 2 background process(es)" in out
    assert gone_within(marker) == []


def test_a_legitimate_command_is_unaffected(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        return (await s.call("shell_command", {"command": "(sleep 0.2; echo inner) & wait; echo outer"})).content

    out = drive(Shell(tmp_path), body)
    assert "Exit code: 0" in out and out.endswith("inner\nouter\n")


def test_escapees_die_on_timeout(tmp_path: Path, marker: str) -> None:
    async def body(s: Shell) -> str:
        return (await s.call("shell_command", {"command": escapes(marker) + "sleep 60", "timeout_ms": 1500})).content

    out = drive(Shell(tmp_path), body)
    assert "Exit code: 124" in out
    assert gone_within(marker) == []


def test_escapees_die_on_cancel(tmp_path: Path, marker: str) -> None:
    async def body(s: Shell) -> str:
        s.ctx.cancel = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.call_later(1.5, s.ctx.cancel.set)
        return (await s.call("shell_command", {"command": escapes(marker) + "sleep 60"})).content

    out = drive(Shell(tmp_path), body)
    assert "Exit code: 130" in out
    assert gone_within(marker) == []


def test_escapees_of_a_background_job_die_when_the_run_ends(tmp_path: Path, marker: str) -> None:
    async def body(s: Shell) -> None:
        await s.call("shell_command", {"command": escapes(marker) + "sleep 60", "run_in_background": True})
        wait_for(marker, 2)

    drive(Shell(tmp_path), body)  # ends the run: shutdown() kills the jobs
    assert gone_within(marker) == []


def test_kept_jobs_still_survive_when_asked(tmp_path: Path, marker: str) -> None:
    async def body(s: Shell) -> None:
        await s.call("shell_command", {"command": f"{PY} -c 'import time; time.sleep(300)' {marker}",
                                       "run_in_background": True})
        wait_for(marker, 1)

    drive(Shell(tmp_path, keep_jobs=True), body)
    time.sleep(0.5)
    assert survivors(marker), "keep_jobs = true must leave the job running"


def _headless(env: dict[str, str], cwd: Path, *args: str) -> list[str]:
    return [AIAGENT, "--headless", "--provider", "openai", "--model", "test-model", *args]


def test_kill_9_of_the_agent_kills_its_commands(clean_env: dict[str, str], tmp_path: Path, marker: str) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    call = ToolCall("shell_command", {"command": escapes(marker) + f"sleep 120 # {marker}-root"})
    with FakeLLM([Turn(text="", tool_calls=[call]), Turn(text="done")]) as fake:
        env = {**clean_env, "OPENAI_BASE_URL": fake.url + "/v1", "OPENAI_API_KEY": "sk-test"}
        agent = subprocess.Popen(
            _headless(env, project, "--prompt", "go", "--approve", "shell_command"),
            cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            wait_for(marker, 3, seconds=30)
        finally:
            agent.kill()  # SIGKILL: no clean-up code of ours runs
            agent.communicate(timeout=10)
    assert gone_within(marker, 2.0) == []

    with FakeLLM([Turn(text="resumed fine")]) as fake:
        env = {**clean_env, "OPENAI_BASE_URL": fake.url + "/v1", "OPENAI_API_KEY": "sk-test"}
        again = subprocess.run(_headless(env, project, "--continue", "--prompt", "again"), cwd=project,
                               env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert "resumed fine" in again.stdout
    assert "Traceback" not in again.stderr and "Event loop is closed" not in again.stderr, again.stderr


def test_a_skill_command_goes_through_the_runner(tmp_path: Path, marker: str) -> None:
    from aiagent.agent.skills.execution import run_command

    env = {"PATH": os.environ["PATH"]}
    script = escapes(marker) + "echo out; echo err >&2; sleep 60"
    slow = asyncio.run(run_command(["sh", "-c", script], tmp_path, env, 1.5, 1000))
    assert slow["timed_out"] and slow["exit_code"] == -1 and slow["stdout"] == "out\n"
    assert slow["stderr"].startswith("err\n") and "[timed out after 1.5s]" in slow["stderr"]
    assert gone_within(marker) == []
    quick = asyncio.run(run_command(["sh", "-c", "printf '%05000d' 0; exit 4"], tmp_path, env, 10, 100))
    assert quick == {"stdout": "0" * 100, "stderr": "", "exit_code": 4, "timed_out": False}
    missing = asyncio.run(run_command(["no-such-program-xyz"], tmp_path, env, 10, 100))
    assert missing["exit_code"] == 127 and "command not found" in missing["stderr"]


def test_no_event_loop_closed_traceback_at_exit_even_without_the_reaper(tmp_path: Path, marker: str) -> None:
    """An escapee holding the output pipe used to leave an asyncio subprocess transport to be
    finalised after the loop closed: "Exception ignored … RuntimeError: Event loop is closed"
    on stderr at exit. The runner no longer uses asyncio subprocess transports at all."""
    code = (
        "import pathlib, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from shellkit import Shell, drive\n"
        "async def body(s):\n"
        f"    cmd = \"env -i setsid sh -c 'sleep 4; : {marker}' & echo started\"\n"
        "    return (await s.call('shell_command', {'command': cmd})).content\n"
        f"print(drive(Shell(pathlib.Path({str(tmp_path)!r})), body))\n"
    )
    for no_reaper in ("1", "0"):
        proc = subprocess.run([PY, "-X", "dev", "-c", code], env={**os.environ, "AIAGENT_NO_REAPER": no_reaper},
                              capture_output=True, text=True, timeout=60)
        assert "started" in proc.stdout, proc.stderr
        assert "Event loop is closed" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
