"""Helpers for shell tests: run several tool calls in one event loop, check PIDs."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil

from aiagent.agent.tools.base import ToolRegistry
from aiagent.agent.tools.shell import shutdown
from aiagent.contracts.tools import ToolContext, ToolResult


class Shell:
    def __init__(self, root: Path, **settings: Any) -> None:
        self.root = root
        self.events: list[Any] = []
        shell = {"login": False, "kill_grace": 0.5, **settings}
        self.ctx = ToolContext(workspace=root, call_id="c1", emit=self.events.append, settings={"shell": shell})
        self.registry = ToolRegistry()

    async def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        tool = self.registry.get(name)
        assert tool is not None
        return await tool.run(args, self.ctx)

    async def timed(self, name: str, args: dict[str, Any]) -> tuple[ToolResult, float]:
        start = time.monotonic()
        result = await self.call(name, args)
        return result, time.monotonic() - start


def drive(shell: Shell, body: Callable[[Shell], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        try:
            return await body(shell)
        finally:
            await shutdown(shell.ctx.state)

    return asyncio.run(main())


def pids_in(path: Path, *, may_be_missing: bool = False) -> list[int]:
    """The pids a test program wrote to ``path``. With ``may_be_missing``, none when it never
    got that far (its tree was ended first): callers then also check :func:`running_in`."""
    deadline = time.monotonic() + 2
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if may_be_missing and not path.exists():
        return []
    return [int(x) for x in path.read_text().split()]


def running_in(folder: Path) -> list[int]:
    """Processes whose working folder is ``folder`` (found through /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == folder.resolve():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.Error:
            pass
    return out
