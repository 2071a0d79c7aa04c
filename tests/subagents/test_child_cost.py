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


DEAR = """---
name: dear
description: An expensive helper.
model: opus
---
Think hard.
"""


def _dear_child_run(run_cli, clean_env, project: Path, profile: str, *args: str):
    """The parent (on haiku) delegates to ``profile``, whose child spends 100k input tokens."""
    agents = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "dear.md").write_text(DEAR)
    answer = conversation(
        [Turn(tool_calls=[task("Think.", agent=profile)], usage=(100, 10)),
         Turn(text="parent done", usage=(100, 10))],
        {"Think.": [Turn(text="thought", usage=(100_000, 1000))]})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--model", "claude-haiku-4-5", *args, "--prompt",
                       PARENT_PROMPT, cwd=project, env=env_for(fake))
        return proc, [r["json"] for r in fake.requests]


@pytest.mark.parametrize(("profile", "stops"), [("dear", True), ("general", False)])
def test_the_budget_prices_a_child_at_its_own_model(run_cli, clean_env, project: Path,
                                                    profile: str, stops: bool) -> None:
    """$1: the child's tokens cost $0.105 at the parent's haiku price and $1.575 at opus's
    (the dear profile's model): only the latter stops the run, before the parent's next
    request."""
    proc, bodies = _dear_child_run(run_cli, clean_env, project, profile, "--max-cost", "1",
                                   "-o", "json")
    data = json.loads(proc.stdout)
    (sub,) = data["subagents"]
    if stops:
        assert proc.returncode == 4, proc.stderr
        assert data["stop_reason"] == "max_budget"
        assert data["stop_message"].startswith("cost budget reached: $1.5")
        assert sub["model"] == "claude-opus-4-1"
        assert sub["cost_usd"] == pytest.approx((100_000 * 15.0 + 1000 * 75.0) / 1e6)
        assert data["cost_usd"] == pytest.approx(sub["cost_usd"] + (100 * 1.0 + 10 * 5.0) / 1e6)
        assert [b["model"] for b in bodies] == ["claude-haiku-4-5", "claude-opus-4-1"]
    else:
        assert proc.returncode == 0, proc.stderr
        assert data["answer"] == "parent done" and sub["model"] == "claude-haiku-4-5"


def test_stream_json_subagent_result_has_the_child_s_cost(run_cli, clean_env, project: Path) -> None:
    proc, _ = _dear_child_run(run_cli, clean_env, project, "dear", "-o", "stream-json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    (result,) = [x for x in lines if x.get("subtype") == "subagent_result"]
    assert result["model"] == "claude-opus-4-1"
    assert result["cost_usd"] == pytest.approx(1.575)
    (end,) = [x for x in lines if x["type"] == "result"]
    assert end["total_cost_usd"] == pytest.approx(1.575 + 0.00015 + 0.00015)


def test_a_grandchild_s_tokens_reach_the_parent_at_the_grandchild_s_model() -> None:
    """With subagent_depth above 1, a child's own child is priced at its own model in the
    parent's total too (not at the child's)."""
    from types import SimpleNamespace

    from aiagent.agent.core.loop import Agent
    from aiagent.agent.core.subagents.runner import _count

    class Tally(SimpleNamespace):
        add_usage = Agent.add_usage

    grandchild = Usage(50_000, 500)
    child = Tally(usage=Usage(1000, 100) + grandchild, usage_elsewhere=[("claude-opus-4-1", grandchild)])
    parent = Tally(usage=Usage(10, 1), usage_elsewhere=[])
    _count(parent, child, "claude-haiku-4-5")  # type: ignore[arg-type]
    assert parent.usage == Usage(10, 1) + child.usage
    assert parent.usage_elsewhere == [("claude-haiku-4-5", Usage(1000, 100)),
                                      ("claude-opus-4-1", grandchild)]
    assert run_cost("claude-sonnet-4-5", parent.usage, parent.usage_elsewhere) == pytest.approx(
        cost("claude-sonnet-4-5", Usage(10, 1)) + cost("claude-haiku-4-5", Usage(1000, 100))
        + cost("claude-opus-4-1", grandchild))


def test_a_child_s_own_requests_are_checked_against_the_run_budget(run_cli, clean_env,
                                                                   project: Path) -> None:
    """A dear child that spent past the run's limit is not sent its next request: it stops
    (``max_budget``), and so does the run, with exit 4."""
    agents = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "agents"
    agents.mkdir(parents=True)
    (agents / "dear.md").write_text(DEAR)
    answer = conversation(
        [Turn(tool_calls=[task("Think.", agent="dear")], usage=(100, 10)),
         Turn(text="parent done", usage=(100, 10))],
        {"Think.": [Turn(tool_calls=[ToolCall("read_file", {"file_path": str(project / "notes.txt")})],
                         usage=(100_000, 1000)),
                    Turn(text="thought", usage=(100, 10))]})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--model", "claude-haiku-4-5", "--max-cost", "1", "--prompt",
                       PARENT_PROMPT, "-o", "json", cwd=project, env=env_for(fake))
        models = [r["json"]["model"] for r in fake.requests]
    assert proc.returncode == 4, proc.stderr
    assert models == ["claude-haiku-4-5", "claude-opus-4-1"]  # the child's second: not sent
    data = json.loads(proc.stdout)
    (sub,) = data["subagents"]
    assert sub["stop_reason"] == "max_budget"
    assert "stopped before finishing (max_budget)" in data["tool_calls"][0]["result"]
    assert data["stop_reason"] == "max_budget"
