"""The tools skills put in front of the model: each skill's own tools, ``activate_skill``
(progressive disclosure) and ``run_workflow``."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from aiagent.agent.skills.approvals import event_approver
from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.context import SkillError
from aiagent.agent.skills.permissions import PermissionDenied
from aiagent.contracts.tools import UNDECLARED, ToolContext, ToolEffect, ToolResult

if TYPE_CHECKING:
    from aiagent.agent.skills.contributions import ActiveSkill, WorkflowInfo
    from aiagent.agent.skills.permissions import Approver

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
Call = Callable[[str, str, str, Any], Awaitable[Any]]  # (skill, kind, name, arg): Dispatch.call


class Activator(Protocol):
    """What ``activate_skill`` uses (a :class:`~aiagent.agent.skills.runtime.SkillRuntime`)."""

    def available_names(self) -> list[str]: ...
    def read_resource(self, name: str, rel: str) -> str: ...
    async def activate(self, name: str, reason: str = ..., approver: Approver | None = ...) -> ActiveSkill: ...
    def disclose(self, skill: ActiveSkill) -> str: ...


class Workflows(Protocol):
    """What ``run_workflow`` uses (a :class:`~aiagent.agent.skills.runtime.SkillRuntime`)."""

    def workflows(self) -> dict[str, WorkflowInfo]: ...
    async def run_workflow(self, name: str, input: Mapping[str, Any]) -> Any: ...


def to_tool_result(value: Any) -> ToolResult:
    """What a handler returned, as the result the model reads."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, dict) and "__error__" in value:
        return ToolResult(str(value["__error__"]), True)
    if isinstance(value, dict) and "content" in value and set(value) <= {"content", "is_error", "metadata"}:
        return ToolResult(str(value["content"]), bool(value.get("is_error")))
    if value is None:
        return ToolResult("")
    if isinstance(value, str):
        return ToolResult(value)
    return ToolResult(json.dumps(value, ensure_ascii=False, default=str, indent=2))


async def guarded(work: Any) -> ToolResult:

    try:
        return to_tool_result(await work)
    except (BackendError, PermissionDenied, SkillError) as exc:
        return ToolResult(str(exc), True)


class SkillTool:
    """A tool a skill registered; runs through the skill's backend."""

    def __init__(self, call: Call, skill: str, name: str, description: str,
                 input_schema: dict[str, Any], requires_approval: bool) -> None:
        self.call, self.skill = call, skill
        self.name, self.description, self.input_schema = name, description, input_schema
        self.requires_approval = requires_approval
        # the skill's permissions were approved when it activated; what still needs a
        # person is a tool the manifest marks requires_approval
        self.effect = UNDECLARED if requires_approval else \
            ToolEffect.of("execute", approved_by="the skill's permissions, when it activated")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await guarded(self.call(self.skill, "tool", self.name, args))


class ActivateSkillTool:
    name = "activate_skill"
    # activation asks for the skill's permissions itself (the skill approver)
    effect = ToolEffect.of("read", "execute", approved_by="the skill approver, on activation")

    description = ("Load a skill from the skills index: returns its instructions and resources and "
                   "makes its tools available. Give `resource` to read one of its files.")

    def __init__(self, runtime: Activator) -> None:
        self.runtime = runtime
        self.input_schema = self._schema()

    def _schema(self) -> dict[str, Any]:
        names = self.runtime.available_names()
        name_schema: dict[str, Any] = {"type": "string", "description": "the skill's name"}
        if names:
            name_schema["enum"] = names
        return {
            "type": "object",
            "properties": {
                "name": name_schema,
                "resource": {"type": "string", "description": "a file of the skill to read (optional)"},
            },
            "required": ["name"],
            "additionalProperties": False,
        }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:

        name = str(args["name"])
        try:
            if args.get("resource"):
                return ToolResult(self.runtime.read_resource(name, str(args["resource"])))
            active = await self.runtime.activate(name, "model", approver=event_approver(ctx))
        except (BackendError, PermissionDenied, LookupError, ValueError) as exc:
            return ToolResult(str(exc), True)
        return ToolResult(self.runtime.disclose(active))


class RunWorkflowTool:
    name = "run_workflow"
    effect = UNDECLARED

    def __init__(self, runtime: Workflows) -> None:
        self.runtime = runtime
        self.description = ""
        self.input_schema: dict[str, Any] = {}
        self.refresh()

    def refresh(self) -> None:
        """Describe the workflows active now (call when skills come and go)."""
        workflows = sorted(self.runtime.workflows().items())
        lines = [f"- {name}: {w.description or '(no description)'}" for name, w in workflows]
        self.description = "Run a workflow provided by an active skill. Workflows:\n" + "\n".join(lines)
        self.input_schema = {
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": sorted(self.runtime.workflows())},
                "input": {"type": "object", "description": "the workflow's input"},
            },
            "required": ["name"],
        }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await guarded(self.runtime.run_workflow(str(args["name"]), args.get("input") or {}))
