"""A child's conversation is saved as a session of its own, linked to the parent's: the
real ``aiagent --headless`` against FakeLLM, then ``aiagent sessions …``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.subagents.scripting import PARENT_PROMPT, conversation, env_for, task, who

from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / "notes.txt").write_text("NOTES-CONTENT-77\n")
    return folder


def _sessions(run_cli, project: Path) -> list[dict]:
    listed = run_cli("sessions", "list", "--json", cwd=project)
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)


def test_each_child_is_a_session_linked_to_the_parent(run_cli, project: Path) -> None:
    notes = str(project / "notes.txt")
    answer = conversation(
        [Turn(tool_calls=[task("Read the notes.", description="Read notes"),
                          task("Say hello.", description="Greet")]),
         Turn(text="PARENT-ANSWER")],
        {"Read the notes.": [Turn(tool_calls=[ToolCall("read_file", {"file_path": notes})]),
                             Turn(text="CHILD-ONE-ANSWER")],
         "Say hello.": [Turn(text="CHILD-TWO-ANSWER")]})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--prompt", PARENT_PROMPT, cwd=project, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    (parent,) = _sessions(run_cli, project)  # the children are not listed on their own
    shown = run_cli("sessions", "show", parent["id"], cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "## Subagents" in shown.stdout and "NOTES-CONTENT-77" not in shown.stdout
    children = [line.split("`")[1] for line in shown.stdout.splitlines() if line.startswith("- `")]
    assert len(children) == 2
    texts = {}
    for child in children:
        one = run_cli("sessions", "show", child, cwd=project)
        assert one.returncode == 0, one.stderr
        assert f"started in session `{parent['id']}`" in one.stdout
        texts[child] = one.stdout
    first, second = (texts[c] for c in children)
    assert "[general#1] Read notes" in first and "Read the notes." in first
    assert "read_file" in first and "NOTES-CONTENT-77" in first and "CHILD-ONE-ANSWER" in first
    assert "[general#2] Greet" in second and "CHILD-TWO-ANSWER" in second
    exported = json.loads(run_cli("sessions", "export", children[0], "--format", "json",
                                  cwd=project).stdout)
    assert exported["parent_id"] == parent["id"]
    assert sum(m["usage"]["input_tokens"] for m in exported["messages"]) > 0  # its own tokens


def test_continue_resumes_the_parent_and_delete_takes_the_children(run_cli, project: Path) -> None:
    answer = conversation([Turn(tool_calls=[task("Say hello.")]), Turn(text="first done"),
                           Turn(text="second done")],
                          {"Say hello.": [Turn(text="hello")]})
    with FakeLLM(responder=answer) as fake:
        first = run_cli("--headless", "--prompt", PARENT_PROMPT, cwd=project, env=env_for(fake))
        again = run_cli("--headless", "--continue", "--prompt", "and now?", cwd=project,
                        env=env_for(fake))
        last = fake.requests[-1]["json"]
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    assert who(last) == "parent" and "first done" in json.dumps(last["messages"])
    (parent,) = _sessions(run_cli, project)
    child = run_cli("sessions", "show", parent["id"], cwd=project).stdout.split("- `")[1].split("`")[0]
    deleted = run_cli("sessions", "delete", parent["id"], cwd=project)
    assert deleted.returncode == 0, deleted.stderr
    gone = run_cli("sessions", "show", child, cwd=project)
    assert gone.returncode == 2 and "no session" in gone.stderr
