"""Plans in the real ``aiagent --headless`` against FakeLLM: json carries the last plan
(even in read-only mode: the tool never asks), markdown a checklist, text mode nothing
beyond the usual tool lines on stderr; ``--continue`` keeps the session's plan."""

from __future__ import annotations

import json
from pathlib import Path

from aiagent.testing import FakeLLM, ToolCall, Turn

PLAN = {"explanation": "small job", "plan": [
    {"step": "Read notes.txt", "status": "completed"},
    {"step": "Answer", "status": "in_progress"}]}
HUGE = {"plan": [{"step": f"step {i}", "status": "pending"} for i in range(10_000)]}


def env_for(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def script() -> list[Turn]:
    return [Turn(text="Planning.", tool_calls=[ToolCall("update_plan", PLAN)]),
            Turn(text="Too big.", tool_calls=[ToolCall("update_plan", HUGE)]),
            Turn(text="The answer is 42.")]


def test_json_has_the_last_plan_and_continue_keeps_it(run_cli, tmp_path: Path) -> None:
    with FakeLLM(script()) as fake:
        proc = run_cli("--headless", "--approval-mode", "read-only", "-p", "plan it", "-o", "json",
                       cwd=tmp_path, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["answer"] == "The answer is 42."
    assert data["plan"] == {"explanation": "small job", "steps": PLAN["plan"]}
    first, huge = data["tool_calls"]
    assert (first["result"], first["is_error"]) == ("Plan updated", False)
    assert huge["is_error"] and huge["result"] == "update_plan: plan: 10000 steps; at most 100"
    with FakeLLM([Turn(text="Still on it.")]) as fake:
        proc = run_cli("--headless", "--continue", "-p", "and now?", "-o", "json",
                       cwd=tmp_path, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    again = json.loads(proc.stdout)
    assert again["tool_calls"] == [] and again["plan"] == data["plan"]
    # beside it: a new session has no plan
    with FakeLLM([Turn(text="Fresh.")]) as fake:
        proc = run_cli("--headless", "-p", "hi", "-o", "json", cwd=tmp_path, env=env_for(fake))
    assert json.loads(proc.stdout)["plan"] is None


def test_markdown_has_a_checklist_and_text_mode_stays_quiet(run_cli, tmp_path: Path) -> None:
    with FakeLLM(script()) as fake:
        proc = run_cli("--headless", "-p", "plan it", "-o", "markdown", cwd=tmp_path, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    assert "## Plan\n\nsmall job\n\n- [x] Read notes.txt\n- [ ] **(in progress)** Answer\n" in proc.stdout
    with FakeLLM(script()) as fake:
        proc = run_cli("--headless", "-p", "plan it", cwd=tmp_path, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The answer is 42.\n"
    assert "→ update_plan" in proc.stderr and "← update_plan: Plan updated" in proc.stderr
    assert "[x]" not in proc.stderr and "Read notes.txt\n" not in proc.stderr
    assert len(proc.stderr.splitlines()) <= 8, proc.stderr  # the 10k-step call stays one line
