"""update_plan: Codex's schema, hard checks of what the model sends (errors name the field,
never raise, stay short), the event it emits, where it is offered, and that no permission
mode ever asks for it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aiagent.agent.permissions.policy import MODES, PermissionPolicy
from aiagent.agent.tools.base import ToolRegistry, validate_args
from aiagent.agent.tools.plan import MAX_STEP_CHARS, MAX_STEPS, UpdatePlanTool, last_plan, plans
from aiagent.agent.tools.profiles import PROFILES, expand_groups
from aiagent.contracts.events import AgentEvent, PlanStep, PlanUpdatedEvent
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.tools import ToolContext, ToolResult
from aiagent.infra.store import db
from aiagent.infra.store.approvals import ApprovalStore

GOOD = {"explanation": "Start with the parser.",
        "plan": [{"step": "Read the parser", "status": "completed"},
                 {"step": "Fix the bug", "status": "in_progress"},
                 {"step": "Run the tests", "status": "pending"}]}


def call(args: Any, tmp_path: Path) -> tuple[ToolResult, list[AgentEvent]]:
    events: list[AgentEvent] = []
    ctx = ToolContext(workspace=tmp_path, call_id="call-1", emit=events.append)
    return asyncio.run(UpdatePlanTool().run(args, ctx)), events


def test_a_good_plan_is_recorded_and_emitted(tmp_path: Path) -> None:
    result, events = call(GOOD, tmp_path)
    assert (result.content, result.is_error) == ("Plan updated", False)
    assert events == [PlanUpdatedEvent("call-1", (
        PlanStep("Read the parser", "completed"), PlanStep("Fix the bug", "in_progress"),
        PlanStep("Run the tests", "pending")), "Start with the parser.")]
    # the explanation is optional; an empty plan clears it
    result, events = call({"plan": []}, tmp_path)
    assert not result.is_error and events == [PlanUpdatedEvent("call-1", (), "")]
    assert validate_args(UpdatePlanTool(), GOOD) is None


def test_the_schema_is_codexs(tmp_path: Path) -> None:
    tool = ToolRegistry().get("update_plan")
    assert isinstance(tool, UpdatePlanTool)
    jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    s = tool.input_schema
    assert (s["required"], s["additionalProperties"]) == (["plan"], False)
    assert set(s["properties"]) == {"explanation", "plan"}
    item = s["properties"]["plan"]["items"]
    assert (item["required"], item["additionalProperties"]) == (["step", "status"], False)
    assert item["properties"]["status"]["enum"] == ["pending", "in_progress", "completed"]
    assert "At most one step can be in_progress" in tool.description


HOSTILE: list[tuple[str, Any, str]] = [
    ("10k steps", {"plan": [{"step": f"s{i}", "status": "pending"} for i in range(10_000)]},
     f"plan: 10000 steps; at most {MAX_STEPS}"),
    ("1 MB step", {"plan": [{"step": "x" * (1 << 20), "status": "pending"}]},
     f"plan[0].step: 1048576 characters; at most {MAX_STEP_CHARS}"),
    ("two in progress", {"plan": [{"step": "a", "status": "in_progress"},
                                  {"step": "b", "status": "completed"},
                                  {"step": "c", "status": "in_progress"}]},
     "plan: 2 steps are in_progress (plan[0], plan[2]); at most one may be"),
    ("wrong status", {"plan": [{"step": "a", "status": "done"}]},
     "plan[0].status: 'done' is not one of pending, in_progress, completed"),
    ("status not a string", {"plan": [{"step": "a", "status": ["pending"]}]},
     "plan[0].status: ['pending'] is not one of"),
    ("not a list", {"plan": "step one; step two"}, "plan: must be a list of {step, status}, not a string"),
    ("a megabyte string plan", {"plan": "y" * (1 << 20)}, "plan: must be a list"),
    ("plan missing", {"explanation": "x"}, "plan: is required"),
    ("step not an object", {"plan": ["do it"]}, "plan[0]: must be an object {step, status}, not a string"),
    ("step not a string", {"plan": [{"step": 7, "status": "pending"}]},
     "plan[0].step: must be a string, not a number"),
    ("empty step", {"plan": [{"step": "  ", "status": "pending"}]}, "plan[0].step: is empty"),
    ("unknown step field", {"plan": [{"step": "a", "status": "pending", "owner": "me"}]},
     "plan[0]: unknown field 'owner'"),
    ("unknown argument", {"plan": [], "force": True}, "unknown argument 'force'"),
    ("explanation not a string", {"plan": [], "explanation": {"a": 1}},
     "explanation: must be a string, not an object"),
    ("explanation too long", {"plan": [], "explanation": "e" * 100_000},
     "explanation: 100000 characters; at most"),
    ("arguments not an object", ["plan"], "arguments: must be an object, not a list"),
]


@pytest.mark.parametrize(("what", "args", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_arguments_are_an_error_result_naming_the_field(
        what: str, args: Any, message: str, tmp_path: Path) -> None:
    result, events = call(args, tmp_path)
    assert result.is_error, what
    assert result.content.startswith("update_plan: " + message), result.content[:300]
    assert len(result.content) < 300  # never echoes a megabyte back to the model
    assert events == []  # nothing recorded
    # legitimate use beside it still works
    result, events = call(GOOD, tmp_path)
    assert not result.is_error and len(events) == 1


def test_the_loops_schema_check_stays_short_on_huge_values() -> None:
    """The loop checks the schema before run(); its message quotes the bad value, cut."""
    tool = UpdatePlanTool()
    problem = validate_args(tool, {"plan": "y" * (1 << 20)})
    assert problem is not None and problem.startswith("invalid arguments for update_plan: plan: ")
    assert len(problem) < 400
    problem = validate_args(tool, {"plan": [{"step": "a", "status": "done"}]})
    assert problem is not None and "plan/0/status" in problem and "'done'" in problem


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("interactive", [True, False])
def test_no_permission_mode_ever_asks(mode: str, interactive: bool, tmp_path: Path) -> None:
    store = ApprovalStore(db.connect(tmp_path / "aiagent.db"))
    policy = PermissionPolicy(mode, store, workspace=tmp_path, interactive=interactive,  # type: ignore[arg-type]
                              sandbox="unavailable")
    decision = asyncio.run(policy.decide(UpdatePlanTool(), GOOD))
    assert decision.verdict == "allow", (mode, decision)
    # beside it: a tool that writes is not allowed in read-only mode (the check can fail)
    writer = ToolRegistry().get("write_file")
    assert writer is not None
    verdict = asyncio.run(policy.decide(writer, {"file_path": "a.txt", "content": ""})).verdict
    assert verdict != "allow" or mode in ("auto-edit", "full-auto")


def test_offered_in_every_profile() -> None:
    for name, tools in PROFILES.items():
        assert "update_plan" in tools, name
    assert expand_groups(["plan"]) == ["update_plan"]


def test_the_last_plan_of_a_stored_conversation() -> None:
    def use(call_id: str, args: Any) -> Message:
        return Message("assistant", [TextBlock("planning"), ToolUseBlock(call_id, "update_plan", args)])

    def result(call_id: str, error: bool = False) -> Message:
        return Message("user", [ToolResultBlock(call_id, "x", error)])

    first = {"plan": [{"step": "one", "status": "in_progress"}]}
    second = {"plan": [{"step": "one", "status": "completed"}, {"step": "two", "status": "in_progress"}]}
    messages = [Message.user("go"), use("a", first), result("a"), use("b", second), result("b"),
                use("c", {"plan": "bad"}), result("c", error=True),   # refused: not a plan
                use("d", first), result("d", error=True),             # failed (not run)
                Message("assistant", [ToolUseBlock("e", "read_file", first)]), result("e")]
    found = plans(messages)
    assert [p.id for p in found] == ["a", "b"]
    last = last_plan(messages)
    assert last is not None and last.steps[1] == PlanStep("two", "in_progress")
    assert last_plan([Message.user("hi")]) is None
