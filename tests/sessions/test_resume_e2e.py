"""Sessions through the real CLI: saved as they happen, resumed with the same bytes,
and a `kill -9` mid-turn loses only the turn in flight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sessions_helpers import (
    anthropic_env,
    chat_requests,
    db_rows,
    provider_env,
    without_cache_marks,
)

from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(os.sys.executable).with_name("aiagent"))
VERBATIM = "  I will read it.\n\n<shell>cat notes.txt</shell>  \n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "notes.txt").write_text("the code word is heliotrope\n")
    return folder


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_resume_sends_the_same_history(run_cli, project: Path, provider: str) -> None:
    script = [
        Turn(text=VERBATIM, tool_calls=[ToolCall("read_file", {"file_path": "notes.txt", "limit": 5})]),
        Turn(text="It says: heliotrope.  "),
        Turn(text="Still heliotrope."),
    ]
    with FakeLLM(script) as fake:
        env = provider_env(provider, fake)
        first = run_cli("--headless", "--provider", provider, "-p", "What is in notes.txt?",
                        cwd=project, env=env)
        second = run_cli("--headless", "--provider", provider, "--continue", "-p", "Again?",
                         cwd=project, env=env)
        sent = chat_requests(fake)
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert second.stdout == "Still heliotrope.\n"
    before, after = sent[1], sent[2]
    n = len(before["messages"])
    # byte-identical prefix: everything sent before is sent again, unchanged
    same = without_cache_marks
    assert json.dumps(same(after["messages"][:n])) == json.dumps(same(before["messages"]))
    assert json.dumps(same(after.get("tools"))) == json.dumps(same(before.get("tools")))
    assert json.dumps(same(after.get("system"))) == json.dumps(same(before.get("system")))
    assert json.dumps(VERBATIM)[1:-1] in json.dumps(after["messages"])
    assert json.dumps("It says: heliotrope.  ")[1:-1] in json.dumps(after["messages"][n:])


def test_each_message_is_stored_with_usage_and_model(run_cli, project: Path, clean_env) -> None:
    script = [
        Turn(text=VERBATIM, tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})], usage=(120, 30)),
        Turn(text="Done.", usage=(200, 10), cache=(50, 0)),
    ]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "-p", "read it", cwd=project, env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    rows = db_rows(clean_env, "SELECT seq, role, content, model, input_tokens, output_tokens,"
                   " cache_read_tokens FROM messages ORDER BY seq")
    assert [r[1] for r in rows] == ["user", "assistant", "user", "assistant"]
    assert json.loads(rows[1][2])[0]["text"] == VERBATIM  # verbatim, not stripped
    assert rows[1][3] == "claude-sonnet-4-5" and rows[1][4:6] == (120, 30)
    assert rows[3][4:7] == (200, 10, 50)
    title = db_rows(clean_env, "SELECT title, workspace FROM sessions")[0]
    assert title == ("read it", str(project.resolve()))


def _spawn(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([AIAGENT, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(check, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def test_kill_9_mid_answer_then_continue(project: Path, clean_env: dict[str, str]) -> None:
    script = [
        Turn(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Turn(text="This answer never finishes " * 20, chunk_delay=0.5, text_chunks=40),
        Turn(text="Back again: heliotrope."),
    ]
    with FakeLLM(script) as fake:
        env = {**clean_env, **anthropic_env(fake)}
        proc = _spawn(["--headless", "-p", "What is in notes.txt?"], project, env)
        _wait_for(lambda: len(fake.requests) >= 2)
        time.sleep(0.3)  # mid-stream
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        stored = db_rows(clean_env, "SELECT role FROM messages ORDER BY seq")
        assert [r[0] for r in stored] == ["user", "assistant", "user"]  # only the answer is lost
        resumed = subprocess.run([AIAGENT, "--headless", "--continue", "-p", "Go on."], cwd=project,
                                 env=env, capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        sent = chat_requests(fake)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "Back again: heliotrope.\n"
    last = sent[-1]["messages"]
    assert json.dumps(without_cache_marks(last[:3])) == json.dumps(
        without_cache_marks(sent[1]["messages"]))
    assert "Go on." in json.dumps(last[3:])
    assert len(db_rows(clean_env, "SELECT seq FROM messages")) == 5


def test_kill_9_during_a_tool_call_then_continue(project: Path, clean_env: dict[str, str]) -> None:
    script = [
        Turn(text="Sleeping.", tool_calls=[ToolCall("shell_command", {"command": "sleep 30"}, id="call_sleep")]),
        Turn(text="Recovered."),
    ]
    with FakeLLM(script) as fake:
        env = {**clean_env, **anthropic_env(fake)}
        proc = _spawn(["--headless", "--approve", "shell:sleep", "-p", "sleep"], project, env)
        _wait_for(lambda: len(db_rows(clean_env, "SELECT seq FROM messages")) >= 2)
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        resumed = subprocess.run([AIAGENT, "--headless", "--continue", "-p", "status?"], cwd=project,
                                 env=env, capture_output=True, text=True, timeout=60,
                                 stdin=subprocess.DEVNULL)
        sent = chat_requests(fake)
    assert resumed.returncode == 0, resumed.stderr
    assert "marked as not run" in resumed.stderr
    body = json.dumps(sent[-1]["messages"])
    assert "call_sleep" in body and "the session ended before this tool call finished" in body


def test_resume_by_id_and_unknown_id(run_cli, project: Path, clean_env) -> None:
    with FakeLLM([Turn(text="one"), Turn(text="two")]) as fake:
        env = anthropic_env(fake)
        assert run_cli("--headless", "-p", "first", cwd=project, env=env).returncode == 0
        sid = db_rows(clean_env, "SELECT id FROM sessions")[0][0]
        elsewhere = project.parent / "other"
        elsewhere.mkdir()
        proc = run_cli("--headless", "--resume", sid[:5], "-p", "second", cwd=elsewhere, env=env)
        assert proc.returncode == 0, proc.stderr
        assert "first" in json.dumps(chat_requests(fake)[-1]["messages"])
        bad = run_cli("--headless", "--resume", "nope", "-p", "x", cwd=project, env=env)
        none = run_cli("--headless", "--continue", "-p", "x", cwd=elsewhere / "..", env=env)
        picker = run_cli("--headless", "--resume", "-p", "x", cwd=project, env=env)
    assert bad.returncode == 2 and "no session 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert none.returncode == 2 and "no earlier session" in none.stderr
    assert picker.returncode == 2 and sid in picker.stderr
