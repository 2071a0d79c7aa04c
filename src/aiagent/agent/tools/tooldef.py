"""A small base class for the built-in tools and helpers for their arguments."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from aiagent.contracts.tools import UNDECLARED, ToolContext, ToolEffect, ToolError, ToolResult

T = TypeVar("T")


class BuiltinTool:
    """Subclasses set the class attributes and implement :meth:`call`.

    ``call`` returns the text for the model (or a :class:`ToolResult`); raising
    :class:`ToolError` turns into ``ToolResult(message, is_error=True)``. Each tool declares
    its ``effect``; one that forgets is treated as running anything (it always asks). Lines
    the call added to ``ctx.notes`` end the result.
    """

    name: str = ""
    description: str = ""
    input_schema: dict[str, Any] = {}
    effect: ToolEffect = UNDECLARED

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            out = await self.call(args, ctx)
        except ToolError as err:
            out = ToolResult(str(err), is_error=True)
        result = out if isinstance(out, ToolResult) else ToolResult(out)
        if self.effect.writes and not result.is_error and _lsp_on(ctx):
            from aiagent.agent.tools.lsp.tools import diagnose_written

            result = await diagnose_written(ctx, self.effect.paths(args), result)
        if ctx.notes:
            result.content = "\n".join([result.content, *ctx.notes]) if result.content \
                else "\n".join(ctx.notes)
        return result

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str | ToolResult:
        raise NotImplementedError


def _lsp_on(ctx: ToolContext) -> bool:
    lsp = ctx.settings.get("lsp")
    return isinstance(lsp, dict) and bool(lsp.get("enabled")) and bool(lsp.get("diagnostics_after_edit"))


async def in_thread(func: Callable[..., T], *args: Any) -> T:
    """Run blocking file-system work off the event loop."""
    return await asyncio.to_thread(func, *args)


def schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An object schema that rejects unknown properties (as Codex's tools do)."""
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def number(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def int_arg(args: dict[str, Any], key: str, default: int) -> int:
    """An integer argument (JSON numbers may arrive as floats); missing -> ``default``."""
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise ToolError(f"{key} must be an integer")
    return int(value)


def tool_settings(ctx: ToolContext, section: str) -> dict[str, Any]:
    value = ctx.settings.get(section, {})
    return value if isinstance(value, dict) else {}
