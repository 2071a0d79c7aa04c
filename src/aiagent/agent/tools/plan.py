"""``update_plan``: the model records its plan, a checklist the front-ends show.

Compatible with Codex CLI's tool of the same name: ``explanation`` (optional) and ``plan``,
a list of ``{step, status}`` with status ``pending``, ``in_progress`` or ``completed``, at
most one ``in_progress``. Each call replaces the whole plan (an empty list clears it). The
call changes nothing outside the conversation: its effect is ``read`` (never asked), and
its only output besides "Plan updated" is a :class:`PlanUpdatedEvent` for the front-ends.

The arguments come from the model, so they are checked here again (whatever the schema
check before said): a wrong shape, an unknown status, two steps in progress, too many
steps or too long a text is an error result naming the field, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from aiagent.agent.tools.tooldef import BuiltinTool, schema, string
from aiagent.contracts.events import PlanStatus, PlanStep, PlanUpdatedEvent
from aiagent.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from aiagent.contracts.tools import READ, ToolContext, ToolError, ToolResult

NAME = "update_plan"
STATUSES: tuple[PlanStatus, ...] = ("pending", "in_progress", "completed")
MAX_STEPS = 100
MAX_STEP_CHARS = 1000
MAX_EXPLANATION_CHARS = 4000
SHOWN = 60  # characters of a bad value quoted in an error


class PlanError(ToolError):
    """An argument of ``update_plan`` that is not right (one line, names the field)."""


def _quote(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value[:SHOWN])
    return text if len(text) <= SHOWN + 2 else text[:SHOWN] + "…"


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number" if isinstance(value, int | float)
                                     else type(value).__name__)


def check_step(index: int, item: Any) -> PlanStep:
    where = f"plan[{index}]"
    if not isinstance(item, dict):
        raise PlanError(f"{where}: must be an object {{step, status}}, not {_type_name(item)}")
    unknown = sorted(str(k) for k in item if k not in ("step", "status"))
    if unknown:
        raise PlanError(f"{where}: unknown field {_quote(unknown[0])} (only step and status)")
    step, status = item.get("step"), item.get("status")
    if not isinstance(step, str):
        raise PlanError(f"{where}.step: must be a string, not {_type_name(step)}")
    if not step.strip():
        raise PlanError(f"{where}.step: is empty")
    if len(step) > MAX_STEP_CHARS:
        raise PlanError(f"{where}.step: {len(step)} characters; at most {MAX_STEP_CHARS}")
    if status not in STATUSES:
        raise PlanError(f"{where}.status: {_quote(status)} is not one of "
                        f"{', '.join(STATUSES)}")
    return PlanStep(step.strip(), cast(PlanStatus, status))


def check_steps(items: Any) -> tuple[PlanStep, ...]:
    """The steps of ``items`` (the ``plan`` argument), checked; PlanError otherwise."""
    if not isinstance(items, list):
        raise PlanError(f"plan: must be a list of {{step, status}}, not {_type_name(items)}")
    if len(items) > MAX_STEPS:
        raise PlanError(f"plan: {len(items)} steps; at most {MAX_STEPS}")
    steps = tuple(check_step(i, item) for i, item in enumerate(items))
    busy = [f"plan[{i}]" for i, s in enumerate(steps) if s.status == "in_progress"]
    if len(busy) > 1:
        raise PlanError(f"plan: {len(busy)} steps are in_progress ({', '.join(busy[:5])}); "
                        "at most one may be")
    return steps


def check_args(args: Any, call_id: str = "") -> PlanUpdatedEvent:
    """The plan an ``update_plan`` call records; PlanError naming the field otherwise."""
    if not isinstance(args, dict):
        raise PlanError(f"arguments: must be an object, not {_type_name(args)}")
    unknown = sorted(str(k) for k in args if k not in ("explanation", "plan"))
    if unknown:
        raise PlanError(f"unknown argument {_quote(unknown[0])} (only explanation and plan)")
    if "plan" not in args:
        raise PlanError("plan: is required (a list of {step, status})")
    explanation = args.get("explanation")
    if explanation is None:
        explanation = ""
    if not isinstance(explanation, str):
        raise PlanError(f"explanation: must be a string, not {_type_name(explanation)}")
    if len(explanation) > MAX_EXPLANATION_CHARS:
        raise PlanError(f"explanation: {len(explanation)} characters; "
                        f"at most {MAX_EXPLANATION_CHARS}")
    return PlanUpdatedEvent(call_id, check_steps(args["plan"]), explanation.strip())


class UpdatePlanTool(BuiltinTool):
    name = NAME
    description = (
        "Updates the task plan.\n"
        "Provide an optional explanation and a list of plan items, each with a step and "
        "status.\nAt most one step can be in_progress at a time.\n"
    )
    input_schema = schema(
        {
            "explanation": string("Optional explanation for this plan update."),
            "plan": {
                "type": "array",
                "description": "The list of steps",
                "items": schema(
                    {"step": {"type": "string"},
                     "status": {"type": "string", "enum": list(STATUSES),
                                "description": "One of: pending, in_progress, completed"}},
                    ["step", "status"]),
            },
        },
        ["plan"],
    )
    effect = READ  # records the plan in the conversation; touches nothing else

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            event = check_args(args, ctx.call_id)
        except PlanError as exc:
            return ToolResult(f"{NAME}: {exc}", is_error=True)
        ctx.emit(event)
        return ToolResult("Plan updated")


def last_plan(messages: Iterable[Message]) -> PlanUpdatedEvent | None:
    """The plan of the last ``update_plan`` call that succeeded in a stored conversation
    (what a resumed session shows), or None."""
    return next(reversed(plans(messages)), None)


def plans(messages: Iterable[Message]) -> list[PlanUpdatedEvent]:
    """Every plan recorded in a stored conversation, in order (calls that failed or were
    not run are left out)."""
    calls: dict[str, ToolUseBlock] = {}
    found: list[PlanUpdatedEvent] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolUseBlock) and block.name == NAME:
                calls[block.id] = block
            elif isinstance(block, ToolResultBlock) and not block.is_error \
                    and block.tool_use_id in calls:
                try:
                    found.append(check_args(calls.pop(block.tool_use_id).input,
                                            block.tool_use_id))
                except PlanError:
                    continue
    return found


def done_count(event: PlanUpdatedEvent) -> int:
    return sum(1 for s in event.steps if s.status == "completed")


def current_step(event: PlanUpdatedEvent) -> PlanStep | None:
    return next((s for s in event.steps if s.status == "in_progress"), None)
