"""What a new user hit with the real ``aiagent --headless`` command (issue 26), against
FakeLLM on loopback: a run from a folder with unreadable entries, ``--debug`` tracebacks
of errors the loop catches, SIGTERM and Ctrl-C during a long repository map and during a
running command, and piped input larger than what is kept inline."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
KEY = "sk-ant-test-123456"


def env_for(fake: FakeLLM, clean_env: dict[str, str]) -> dict[str, str]:
    return {**clean_env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": KEY}


# ---- unreadable folders ------------------------------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux's /proc")
def test_a_run_from_a_folder_with_unreadable_entries_answers(run_cli, clean_env) -> None:
    """``cd / && aiagent --headless -p hello`` failed every turn on ``/proc/1/fdinfo``."""
    with FakeLLM([Turn(text="hello to you")]) as fake:
        proc = run_cli("--headless", "-p", "hello", cwd=Path("/proc/1"), env=env_for(fake, clean_env))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello to you\n" and "PermissionError" not in proc.stderr


# ---- --debug ---------------------------------------------------------------------------

# The real ``main`` in a fresh interpreter, with one part of the loop failing as a bug would.
FAILING = """
import sys
from aiagent.agent.core import loop
from aiagent.agent.tools import files

async def broken_respond(self, emit):
    raise KeyError("no such thing")

async def broken_read(self, args, ctx):
    raise ZeroDivisionError("read_file bug")

if sys.argv[1] == "loop":
    loop.Agent._respond = broken_respond
else:
    files.ReadFileTool.call = broken_read
from aiagent.frontends.cli import main
main(sys.argv[2:])
"""


def run_failing(where: str, *args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", FAILING, where, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_debug_prints_the_traceback_of_an_error_the_loop_catches(clean_env, project: Path) -> None:
    with FakeLLM([]) as fake:
        plain = run_failing("loop", "--headless", "-p", "hi", cwd=project, env=env_for(fake, clean_env))
        debug = run_failing("loop", "--headless", "-p", "hi", "--debug", cwd=project,
                            env=env_for(fake, clean_env))
    assert plain.returncode == debug.returncode == 5
    assert "Traceback" not in plain.stderr
    assert "internal error: KeyError" in plain.stderr and "--debug" in plain.stderr
    assert "Traceback (most recent call last):" in debug.stderr
    assert "in broken_respond" in debug.stderr and "KeyError: 'no such thing'" in debug.stderr


def test_debug_prints_the_traceback_of_a_failing_tool(clean_env, project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]), Turn(text="ok")]
    with FakeLLM(script) as fake:
        debug = run_failing("tool", "--headless", "-p", "read", "--debug", cwd=project,
                            env=env_for(fake, clean_env))
    assert debug.returncode == 0, debug.stderr
    assert "Traceback (most recent call last):" in debug.stderr
    assert "in broken_read" in debug.stderr and "ZeroDivisionError: read_file bug" in debug.stderr


# ---- SIGTERM and Ctrl-C ------------------------------------------------------------------

STOP_WITHIN = 2.0  # seconds from the signal to the exit


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 Python files: a cold repository map of it takes many seconds (16 s on a
    busy 2-core machine) once its limits are raised."""
    root = tmp_path_factory.mktemp("big")
    body = "".join(f"def function_{i}(a, b):\n    return helper_{i}(a) + other_{i}(b)\n\n"
                   for i in range(30)).encode()
    for d in range(100):
        folder = root / f"pkg{d:03}"
        folder.mkdir()
        for f in range(100):
            (folder / f"mod{f}.py").write_bytes(body)
    config = root / ".agent" / "config.toml"
    config.parent.mkdir()
    config.write_text("[tools.repo_map]\nmax_files = 1000000\nmax_seconds = 600\n")
    return root


def threads(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def wait_until(check, seconds: float = 30) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[float, str, str]:
    """Send ``sig``; (seconds until the process ended, stdout, stderr)."""
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running 30 s after {signal.Signals(sig).name}: {err}")
    return time.monotonic() - sent, out, err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux's /proc to see the map start")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_long_repository_map_stops_the_run(
        clean_env, big_tree: Path, sig: int, code: int) -> None:
    with FakeLLM([Turn(text="never asked")]) as fake:
        env = env_for(fake, clean_env)
        proc = subprocess.Popen([AIAGENT, "--headless", "-p", "hello", "-o", "json"], cwd=big_tree,
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        # the map is built in a worker thread before the first request
        assert wait_until(lambda: threads(proc.pid) >= 2), "the map never started"
        time.sleep(0.5)
        took, out, err = stop(proc, sig)
        asked = len(fake.requests)
    assert asked == 0, "the map was finished before the signal: make the tree bigger"
    assert proc.returncode == code, err
    assert took < STOP_WITHIN, f"{took:.1f}s from {signal.Signals(sig).name} to the exit"
    assert json.loads(out)["stop_reason"] == "interrupted" and "Traceback" not in err
    listed = subprocess.run([AIAGENT, "sessions", "list", "--json"], cwd=big_tree, env=env,
                            capture_output=True, text=True, timeout=60)
    sessions = json.loads(listed.stdout)
    assert len(sessions) == 1 and sessions[0]["messages"] >= 1  # the history is kept


def test_sigterm_while_waiting_on_the_provider_exits_143(clean_env, project: Path) -> None:
    with FakeLLM([Turn(text="x " * 50, chunk_delay=0.2, text_chunks=50)]) as fake:
        proc = subprocess.Popen([AIAGENT, "--headless", "-p", "go", "-o", "json"], cwd=project,
                                env=env_for(fake, clean_env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert wait_until(lambda: bool(fake.requests))
        time.sleep(0.3)
        took, out, err = stop(proc, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert took < STOP_WITHIN
    data = json.loads(out)
    assert data["stop_reason"] == "interrupted" and data["exit_code"] == 143


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def find(argv: list[str]) -> list[int]:
    """Live processes whose command line is ``argv`` (a command in the sandbox has a pid of
    its own namespace: it is found by its arguments, from outside)."""
    wanted = "\0".join(argv) + "\0"
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline") as f:
                    if f.read() == wanted and alive(int(entry)):
                        found.append(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux's /proc")
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_running_command_stops_it(clean_env, project: Path, sig: int, code: int) -> None:
    sleep = ["sleep", f"300.{os.getpid()}{sig}"]  # an argument no other process has
    command = f"{' '.join(sleep)} & echo started > started; wait"
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": command})]), Turn(text="x")]
    with FakeLLM(script) as fake:
        proc = subprocess.Popen([AIAGENT, "--headless", "--tools", "shell_command", "-p", "go"],
                                cwd=project, env=env_for(fake, clean_env), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert wait_until(lambda: (project / "started").is_file() and bool(find(sleep)))
        took, _, err = stop(proc, sig)
    assert proc.returncode == code, err
    assert took < STOP_WITHIN, f"{took:.1f}s from {signal.Signals(sig).name} to the exit"
    assert wait_until(lambda: not find(sleep), 5), "the command outlived the run"


# ---- large piped input -------------------------------------------------------------------


def saved_path(prompt: str) -> Path | None:
    words = [w.strip("`'\".,;:()[]") for w in prompt.replace("\\n", " ").split()]
    found = [w for w in words if "stdin-" in w and w.endswith(".txt")]
    return Path(found[0]) if found else None


def test_large_piped_input_is_kept_in_a_file_the_model_is_told_about(run_cli, clean_env,
                                                                      project: Path) -> None:
    lines = [f"{n:08d} INFO request served in {n % 97} ms\n" for n in range(260_000)]
    lines[0] = "FIRST-LINE-MARKER\n"
    lines[130_000] = "MIDDLE-LINE-MARKER\n"
    lines[-1] = "LAST-LINE-MARKER disk full\n"
    data = "".join(lines)
    size = len(data.encode())
    assert size > 9 * 1024 * 1024

    def answer(request: dict) -> Turn:  # read the middle of the saved input, then answer
        prompt = json.dumps(request["messages"])
        path = saved_path(prompt)
        if path is None or "MIDDLE-LINE-MARKER" in prompt:
            return Turn(text="ok")
        return Turn(tool_calls=[ToolCall("read_file", {"file_path": str(path), "offset": 130_001,
                                                       "limit": 1})])

    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "-p", "What went wrong?", cwd=project,
                       env=env_for(fake, clean_env), input=data)
        sent = [json.dumps(r["json"]["messages"]) for r in fake.requests]
    assert proc.returncode == 0, proc.stderr
    first = sent[0]
    assert len(first) < 1024 * 1024  # only part of it inline
    assert "FIRST-LINE-MARKER" in first and "LAST-LINE-MARKER disk full" in first
    assert "MIDDLE-LINE-MARKER" not in first
    assert f"{size} bytes" in first
    path = saved_path(first)
    assert path is not None and path.is_file(), first[:3000]
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(data.encode()).digest()
    assert str(path) in proc.stderr and f"{size} bytes" in proc.stderr  # the user is told too
    assert len(sent) == 2 and "MIDDLE-LINE-MARKER" in sent[1]  # the model's tools can read it
