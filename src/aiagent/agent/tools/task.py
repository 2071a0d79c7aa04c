"""``task``: hand a piece of work to a child agent (a subagent) and get its summary back.

The tool only declares itself here: what it takes and that calls of it may run side by side
(``concurrent``). Running a child needs the loop, so the work is a ``delegate`` the set-up
(:mod:`aiagent.app`) passes in (:class:`aiagent.agent.core.subagents.runner.Subagents`);
without one (a registry on its own, a child past the depth limit) a call is an error the
model reads. The call itself only starts a conversation: every tool call of the child goes
through the parent's approval policy, so its effect is ``read``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiagent.contracts.tools import READ, ToolContext, ToolError, ToolResult

Delegate = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]

DESCRIPTION = (
    "Hand a self-contained task to a subagent: a child agent with its own context window, "
    "tools and instructions (the profile named by `agent`). It works on its own and answers "
    "with a summary, which is all you get back; its tool output never fills your context. "
    "Give it everything it needs in `prompt` (it does not see this conversation). Several "
    "task calls in one answer run at the same time."
)


class TaskTool:
    name = "task"
    description = DESCRIPTION
    effect = READ
    #: consecutive ``task`` calls of one answer run side by side (see Agent._run_tools)
    concurrent = True
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "description": {"type": "string", "minLength": 1, "maxLength": 200,
                            "description": "a short (3-8 words) title of the task, shown to the user"},
            "prompt": {"type": "string", "minLength": 1,
                       "description": "the task, with every detail the subagent needs"},
            "agent": {"type": "string", "minLength": 1,
                      "description": "the profile to use (default: general)"},
        },
        "required": ["description", "prompt"],
        "additionalProperties": False,
    }

    def __init__(self, delegate: Delegate | None = None, profiles: str = "") -> None:
        self.delegate = delegate
        if profiles:
            self.description = f"{DESCRIPTION}\n\nAvailable agents:\n{profiles}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if self.delegate is None:
            raise ToolError("subagents are not available here (a subagent cannot start "
                            "another one, or [agent] max_subagents is 0)")
        return await self.delegate(args, ctx)
