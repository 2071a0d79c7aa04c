"""Two real ``aiagent --headless --continue`` runs on one session at the same time: both
turns are saved, each in one piece and in order; neither is silently lost."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def _env(clean_env: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    return {**clean_env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def _texts(message: dict) -> str:
    return " ".join(str(b.get("text") or b.get("content") or b.get("name") or "") for b in message["content"])


def _continuing(name: str, slow: float) -> list[Turn]:
    """A continuing run's script: a tool call, then an answer, streamed slowly."""
    return [Turn(text=f"{name} reads", tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})],
                 chunk_delay=slow, text_chunks=4),
            Turn(text=f"{name} says hello", chunk_delay=slow, text_chunks=4)]


def test_two_continues_on_one_session_keep_both_turns(run_cli, clean_env: dict[str, str],
                                                      tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    slow = 0.3  # seconds between stream events, so the two runs overlap
    with FakeLLM([Turn(text="first answer")]) as first_fake:
        first = run_cli("--headless", "-p", "start", env=_env(clean_env, first_fake))
    assert first.returncode == 0, first.stderr
    with FakeLLM(_continuing("A", slow)) as fake_a, FakeLLM(_continuing("B", slow)) as fake_b:
        runs, started = [], time.monotonic()
        for name, fake in (("run-A", fake_a), ("run-B", fake_b)):
            runs.append(subprocess.Popen(
                [AIAGENT, "--headless", "--continue", "--tools", "read_file", "-p", name],
                cwd=tmp_path, env=_env(clean_env, fake), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        while not (fake_a.requests and fake_b.requests) and time.monotonic() - started < 60:
            time.sleep(0.02)
        overlapping = runs[0].poll() is None and runs[1].poll() is None
        outcomes = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in runs]  # type: ignore[union-attr]
    assert overlapping, "both runs must be talking to their model at the same time"
    assert [(code, out) for code, out, _ in outcomes] == [(0, "A says hello\n"), (0, "B says hello\n")], outcomes
    listed = json.loads(run_cli("sessions", "list", "--json").stdout)
    assert len(listed) == 1 and listed[0]["messages"] == 2 + 2 * 4
    exported = run_cli("sessions", "export", listed[0]["id"], "--format", "json")
    assert exported.returncode == 0, exported.stderr
    messages = json.loads(exported.stdout)["messages"]
    texts = [_texts(m) for m in messages]
    assert texts[:2] == ["start", "first answer"]
    for name in ("A", "B"):
        at = texts.index(f"run-{name}")  # each turn in one piece: prompt, tool call, result, answer
        turn = messages[at:at + 4]
        assert [m["role"] for m in turn] == ["user", "assistant", "user", "assistant"]
        assert texts[at + 1].startswith(f"{name} reads")
        assert turn[2]["content"][0]["tool_use_id"] == turn[1]["content"][-1]["id"]
        assert texts[at + 3] == f"{name} says hello"
    shown = run_cli("sessions", "show", listed[0]["id"])
    assert shown.returncode == 0 and "run-A" in shown.stdout and "run-B" in shown.stdout


def test_a_continue_after_the_concurrent_runs_sees_a_valid_history(run_cli, clean_env: dict[str, str],
                                                                   tmp_path: Path) -> None:
    """The provider accepts the merged history: no tool call without its result."""
    script = [Turn(text="one")] + [Turn(text=f"answer {i}", chunk_delay=0.1, text_chunks=5) for i in range(2)]
    script.append(Turn(text="after"))
    with FakeLLM(script) as fake:
        assert run_cli("--headless", "-p", "start", env=_env(clean_env, fake)).returncode == 0
        runs = [subprocess.Popen([AIAGENT, "--headless", "--continue", "-p", f"p{i}"], cwd=tmp_path,
                                 env=_env(clean_env, fake), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(2)]
        assert [p.wait(timeout=120) for p in runs] == [0, 0]
        last = run_cli("--headless", "--continue", "-p", "again", env=_env(clean_env, fake))
        sent = fake.requests[-1]["json"]["messages"]
    assert last.returncode == 0 and last.stdout == "after\n", last.stderr
    roles = [m["role"] for m in sent]
    assert roles == ["user", "assistant"] * 3 + ["user"]
