"""Helpers for the tool tests: a workspace in a tmp dir and a way to call a tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiagent.agent.tools.base import ToolRegistry, validate_args
from aiagent.contracts.tools import ToolContext, ToolResult


class Harness:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.events: list[Any] = []
        self.ctx = ToolContext(workspace=root, call_id="call-1", emit=self.events.append)
        self.registry = ToolRegistry()

    def run(self, name: str, args: dict[str, Any], **settings: Any) -> ToolResult:
        tool = self.registry.get(name)
        assert tool is not None, name
        problem = validate_args(tool, args)
        if problem:
            return ToolResult(problem, is_error=True)
        if settings:
            self.ctx.settings.update(settings)
        return asyncio.run(tool.run(args, self.ctx))

    def ok(self, name: str, args: dict[str, Any], **settings: Any) -> str:
        result = self.run(name, args, **settings)
        assert not result.is_error, result.content
        return result.content

    def err(self, name: str, args: dict[str, Any], **settings: Any) -> str:
        result = self.run(name, args, **settings)
        assert result.is_error, result.content
        return result.content
