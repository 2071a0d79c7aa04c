"""The public API for Python skill authors (the in-process "plugin" backend).

A Python skill is a module with a ``register(ctx)`` function (or ``activate(ctx)``). It
registers tools, hooks, workflows and scanners on the :class:`SkillContext` it is given,
and reaches the agent only through that context, whose methods check the skill's declared
permissions exactly as the Starlark and process backends do::

    from aiagent.sdk import SkillContext, hook_result

    def register(ctx: SkillContext) -> None:
        async def word_count(args: dict) -> str:
            text = await ctx.read_file(args["path"])      # needs file:read
            return str(len(text.split()))

        ctx.register_tool("word_count", word_count, description="Count words in a file",
                          input_schema={"type": "object", "properties": {"path": {"type": "string"}},
                                        "required": ["path"]})

Handlers may be ``async def`` or plain functions (run in a thread). A tool handler returns
a string (or any JSON value); raising :class:`SkillError` (or returning ``error(msg)``)
reports a failure the model reads. Python skills run in-process and are trusted like any
installed library; the permission checks keep honest skills honest.
"""

from aiagent.agent.skills.context import (
    ExecResult,
    FetchResponse,
    HookResult,
    SkillContext,
    SkillError,
    error,
    hook_result,
)
from aiagent.agent.skills.permissions import PermissionDenied

__all__ = [
    "ExecResult",
    "FetchResponse",
    "HookResult",
    "PermissionDenied",
    "SkillContext",
    "SkillError",
    "error",
    "hook_result",
]
