"""Each child's tokens are priced at its own model: the headless JSON's ``subagents[]``
(``cost_usd``), the labelled ``done`` line, and the TUI's total (status line, /cost)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.subagents.scripting import PARENT_PROMPT, conversation, env_for, task

from aiagent.contracts.messages import Usage
from aiagent.frontends.tui.status import Status, status_line
from aiagent.infra.config.pricing import cost, run_cost
from aiagent.testing import FakeLLM, ToolCall, Turn

CHEAP = """---
name: cheap
description: A cheap helper.
model: haiku
---
Be brief.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / "notes.txt").write_text("hello\n")
    return folder


def test_headless_json_prices_each_child_at_its_model(run_cli, clean_env, project: Path) -> None:
    agents = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "agents"
    agents.mkdir(parents=True)
    (agents / "cheap.md").write_text(CHEAP)
    answer = conversation(
        [Turn(tool_calls=[task("Read the notes.", agent="cheap")], usage=(100, 10)),
         Turn(text="done", usage=(100, 10))],
        {"Read the notes.": [
            Turn(tool_calls=[ToolCall("read_file", {"file_path": str(project / "notes.txt")})],
                 usage=(1000, 100)),
            Turn(text="hello", usage=(1000, 100))]})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--prompt", PARENT_PROMPT, "-o", "json", cwd=project,
                       env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    (sub,) = json.loads(proc.stdout)["subagents"]
    assert sub["model"] == "claude-haiku-4-5" and sub["label"] == "cheap#1"
    # haiku: $1 in, $5 out per million tokens
    assert sub["cost_usd"] == pytest.approx((2000 * 1.0 + 200 * 5.0) / 1e6)


def test_the_done_line_carries_the_child_s_cost() -> None:
    from aiagent.contracts.events import DoneEvent, SubagentEvent
    from aiagent.frontends.terminal_text import subagent_line

    done = DoneEvent("completed", "ok", 2, Usage(2000, 200), 0)
    line = subagent_line(SubagentEvent("c1", "cheap", "cheap#1", done, "claude-haiku-4-5"))
    assert line == "[cheap#1] done: completed, 2 turn(s), tokens in/out 2000/200 · ~$0.0030"


def test_a_child_of_unknown_price_has_no_cost(run_cli, project: Path) -> None:
    answer = conversation([Turn(tool_calls=[task("Say hi.")]), Turn(text="ok")],
                          {"Say hi.": [Turn(text="hi")]})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--model", "no-such-model-x", "--prompt", PARENT_PROMPT,
                       "-o", "json", cwd=project, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    (sub,) = json.loads(proc.stdout)["subagents"]
    assert sub["model"] == "no-such-model-x" and sub["cost_usd"] is None


def test_run_cost_prices_children_apart() -> None:
    parent, child = Usage(100_000, 10_000), Usage(1_000_000, 100_000)
    total = parent + child
    split = run_cost("claude-sonnet-4-5", total, [("claude-haiku-4-5", child)])
    assert split == pytest.approx(cost("claude-sonnet-4-5", parent) + cost("claude-haiku-4-5", child))
    assert split == pytest.approx(0.45 + 1.5)
    assert run_cost("claude-sonnet-4-5", total) == pytest.approx(4.95)  # all at the parent's
    # a child whose price is unknown is counted at the parent's model
    assert run_cost("claude-sonnet-4-5", total, [("local-llama", child)]) == pytest.approx(4.95)
    assert run_cost("unknown-model", total, [("claude-haiku-4-5", child)]) is None


def test_status_line_shows_the_split_cost_and_the_children_share() -> None:
    parent, child = Usage(100_000, 10_000), Usage(1_000_000, 100_000)
    status = Status(model="claude-sonnet-4-5", total=parent + child,
                    elsewhere=(("claude-haiku-4-5", child),))
    line = status_line(status, 200)
    assert "$1.95" in line and "1 subagent(s) 1.1M tok" in line
    assert "$1.95" in status_line(status, 40)  # the children's share goes first when narrow
