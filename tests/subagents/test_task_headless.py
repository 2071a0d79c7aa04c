"""The ``task`` tool through the real ``aiagent --headless`` command against FakeLLM.

FakeLLM's ``responder`` answers each request by who sent it: the parent (its first user
message is the run's prompt) or a child (its first user message is the ``prompt`` the parent
gave ``task``), so concurrent children get their own answers in whatever order they ask.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.subagents.scripting import (
    PARENT_PROMPT,
    conversation,
    env_for,
    offered,
    system_of,
    task,
    turn_of,
    who,
)

from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / ".git").mkdir()
    (folder / "notes.txt").write_text("hello from the notes\n")
    return folder


def test_parent_gets_the_child_summary_and_counts_its_tokens(run_cli, project: Path) -> None:
    notes = str(project / "notes.txt")
    answer = conversation(
        [Turn(tool_calls=[task("Read notes.txt and summarise it.")], usage=(100, 10)),
         Turn(text="The child says the notes greet us.", usage=(100, 10))],
        {"Read notes.txt and summarise it.": [
            Turn(tool_calls=[ToolCall("read_file", {"file_path": notes})], usage=(1000, 1)),
            Turn(text="SUMMARY: the notes say hello.", usage=(1000, 1))]},
    )
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--prompt", PARENT_PROMPT, "-o", "json", cwd=project,
                       env=env_for(fake))
        bodies = [r["json"] for r in fake.requests]
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["answer"] == "The child says the notes greet us."
    call = data["tool_calls"][0]
    assert call["name"] == "task" and call["result"] == "SUMMARY: the notes say hello."
    # the child: its own conversation, the built-in general profile's instructions, no task
    child = [b for b in bodies if who(b) != "parent"]
    assert len(child) == 2 and "You are a subagent" in system_of(child[0])
    assert "read_file" in offered(child[0]) and "task" not in offered(child[0])
    assert "hello from the notes" in json.dumps(child[1]["messages"])
    assert "hello from the notes" not in json.dumps(bodies[-1]["messages"])  # stays in the child
    assert "task" in offered(bodies[0])
    # usage: the run's total holds the child's; the child's own is reported apart
    assert data["usage"]["input_tokens"] == 2200 and data["usage"]["output_tokens"] == 22
    (sub,) = data["subagents"]
    assert sub["label"] == "general#1" and sub["stop_reason"] == "completed"
    assert sub["usage"]["input_tokens"] == 2000 and sub["usage"]["output_tokens"] == 2


def test_text_output_labels_what_each_child_does(run_cli, project: Path) -> None:
    answer = conversation(
        [Turn(tool_calls=[task("List the folder.")]), Turn(text="ok")],
        {"List the folder.": [Turn(tool_calls=[ToolCall("list_dir", {"dir_path": str(project)})]),
                              Turn(text="notes.txt is there")]},
    )
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--prompt", PARENT_PROMPT, cwd=project, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "ok\n"
    assert "[general#1] → list_dir" in proc.stderr
    assert "[general#1] ← list_dir" in proc.stderr and "notes.txt" in proc.stderr
    assert "[general#1] done: completed, 2 turn(s)" in proc.stderr


def _two_children(limit: int, project: Path, run_cli) -> list[str]:
    """Two task calls in one answer; the order in which the model is asked by whom."""
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text(f"[agent]\nmax_subagents = {limit}\n")
    both_asked = threading.Event()
    order: list[str] = []
    listing = ToolCall("list_dir", {"dir_path": str(project)})

    def answer(body: dict[str, Any]) -> Turn:
        sender = who(body)
        order.append(f"{sender}:{turn_of(body)}")
        if sender == "child B":
            both_asked.set()
        # with room for two, B asks while A's first answer is still pending
        if sender == "child A" and turn_of(body) == 0 and limit > 1 and not both_asked.wait(10):
            order.append("B did not start while A was running")
        if sender == "parent":
            return Turn(tool_calls=[task("child A"), task("child B")]) if turn_of(body) == 0 \
                else Turn(text="both done")
        if sender == "child A" and turn_of(body) == 0:
            return Turn(tool_calls=[listing])  # A takes two requests
        return Turn(text="A done" if sender == "child A" else "B done")

    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--trust", "--prompt", PARENT_PROMPT, "-o", "json",
                       cwd=project, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    results = [c["result"] for c in json.loads(proc.stdout)["tool_calls"]]
    assert results == ["A done", "B done"]  # in call order, whatever finished first
    return order


def test_two_children_run_one_after_the_other_with_limit_1(run_cli, project: Path) -> None:
    order = _two_children(1, project, run_cli)
    assert order == ["parent:0", "child A:0", "child A:1", "child B:0", "parent:1"]


def test_two_children_run_at_once_with_limit_2(run_cli, project: Path) -> None:
    order = _two_children(2, project, run_cli)
    assert order[0] == "parent:0" and order[-1] == "parent:1"
    assert set(order[1:3]) == {"child A:0", "child B:0"} and "child A:1" in order[3:]


def test_stream_json_shows_what_each_child_does(run_cli, project: Path) -> None:
    """-o stream-json: the child's lines carry the parent's task call as parent_tool_use_id
    (Claude Code's subagent lines) and its label; every line is valid against the schema."""
    from tests.e2e.stream_json_check import lines_of

    notes = str(project / "notes.txt")
    answer = conversation(
        [Turn(tool_calls=[task("Read notes.txt and summarise it.")]), Turn(text="done")],
        {"Read notes.txt and summarise it.": [
            Turn(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": notes})], usage=(50, 5)),
            Turn(text="SUMMARY: hello.", usage=(50, 5))]},
    )
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--prompt", PARENT_PROMPT, "-o", "stream-json", cwd=project,
                       env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    lines = lines_of(proc.stdout)
    (call,) = [b for line in lines if line["type"] == "assistant" and line["parent_tool_use_id"] is None
               for b in line["message"]["content"] if b["type"] == "tool_use"]
    assert call["name"] == "task"
    child = [line for line in lines if line.get("parent_tool_use_id") == call["id"]]
    kinds = [(line["type"], line.get("subtype")) for line in child]
    assert kinds == [("assistant", None), ("user", None), ("assistant", None), ("system", "subagent_result")]
    assert all(line["subagent"] == {"name": "general", "label": "general#1"} for line in child)
    first = child[0]["message"]["content"]
    assert first[0] == {"type": "text", "text": "Reading."} and first[1]["name"] == "read_file"
    assert "hello from the notes" in child[1]["message"]["content"][0]["content"]
    assert child[2]["message"]["content"] == [{"type": "text", "text": "SUMMARY: hello."}]
    assert child[3]["num_turns"] == 2 and child[3]["usage"]["input_tokens"] == 100
    # the parent's own result comes after the child's lines, and counts the child's tokens
    assert lines[-1]["type"] == "result" and lines[-1]["usage"]["input_tokens"] >= 100
