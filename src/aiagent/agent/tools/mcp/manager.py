"""All MCP servers of one agent run, and how they join the agent's tools.

:func:`attach` is called by the one set-up path (:mod:`aiagent.app`): it reads the
configured servers, and on the conversation start starts them all at once (each bounded by
its start-up time-out), offers their tools, and keeps them current when a server announces
a change. A server that fails to start is reported and its tools are not offered; the run
goes on. At the end every server is stopped (its whole process tree).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from aiagent.agent.tools.base import ToolRegistry
from aiagent.agent.tools.mcp.config import ServerConfig, discover
from aiagent.agent.tools.mcp.connection import McpConnection, McpOptions, ServerDown
from aiagent.agent.tools.mcp.prompts import prompt_commands
from aiagent.agent.tools.mcp.tools import McpTool, ReadResourceTool, check_tool
from aiagent.contracts.hooks import Hooks
from aiagent.contracts.messages import Message
from aiagent.contracts.tools import Tool

Report = Callable[[str], None]


class Agent(Protocol):
    """The operations of the core's Agent that this wiring uses."""

    tools: ToolRegistry

    def add_tool(self, tool: Tool, *, offer: bool = True) -> None: ...
    def remove_tool(self, name: str) -> None: ...
    def add_hooks(self, hooks: Hooks, *, first: bool = False) -> None: ...


class McpManager:
    def __init__(self, servers: dict[str, ServerConfig], options: McpOptions, *, env: Any,
                 workspace: Any, report: Report) -> None:
        self.options, self.report = options, report
        self.connections = {
            name: McpConnection(config, env=env, workspace=workspace, options=options,
                                on_tools_changed=self._changed)
            for name, config in servers.items() if config.enabled}
        self.on_change: Callable[[McpConnection, list[Tool]], None] | None = None
        self._warming: asyncio.Future[list[McpConnection]] | None = None

    async def start_all(self) -> list[McpConnection]:
        """Start every server concurrently; the ones that came up."""
        results = await asyncio.gather(*(self._start(c) for c in self.connections.values()))
        return [c for c, ok in zip(self.connections.values(), results, strict=True) if ok]

    async def _start(self, connection: McpConnection) -> bool:
        try:
            await connection.ensure()
        except ServerDown as exc:
            self.report(str(exc))
            return False
        return True

    async def warm(self) -> list[McpConnection]:
        """Start every server once (the first message does, or the TUI ahead of it so that
        their prompts are listed as slash commands while the user types); the ones that
        came up. A failure is reported once; a later call of a tool tries again."""
        if self._warming is None:
            self._warming = asyncio.ensure_future(self.start_all())
        return await asyncio.shield(self._warming)

    def prompt_commands(self) -> dict[str, Any]:
        """``/mcp__server__prompt`` commands of the servers that are up."""

        return prompt_commands(self.connections)

    def tools_of(self, connection: McpConnection) -> list[Tool]:
        found: list[Tool] = []
        for remote in connection.tools:
            problem = check_tool(connection.name, remote)
            if problem:
                self.report(problem)
                continue
            found.append(McpTool(connection, remote, self.options.max_result_chars))
        return found

    def _changed(self, connection: McpConnection) -> None:
        if self.on_change is not None:
            self.on_change(connection, self.tools_of(connection))

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()),
                             return_exceptions=True)


def attach(agent: Agent, settings: Any, *, whitelist: Sequence[str] | None = None,
           report: Report, disabled: Collection[str] = ()) -> McpManager | None:
    """Offer the configured MCP servers' tools to ``agent``; None when there are none.
    Servers named in ``disabled`` (``aiagent skill disable mcp:NAME``) are not started."""
    found = discover(settings)
    for problem in found.problems:
        report(problem)
    for name in disabled:
        if name in found.servers:
            found.servers[name].enabled = False
    if not settings.mcp.enabled or not any(
            s.enabled for s in found.servers.values()):
        return None
    _prefetch_sdk()
    manager = McpManager(found.servers, McpOptions.from_settings(settings), env=settings.env,
                         workspace=settings.workspace, report=report)
    owned: dict[str, set[str]] = {}

    def offered(name: str) -> bool:
        return whitelist is None or name in whitelist or name.split("__", 1)[0] in whitelist

    def sync(connection: McpConnection, tools: list[Tool]) -> None:
        mine = owned.setdefault(connection.name, set())
        for name in mine - {t.name for t in tools}:
            agent.remove_tool(name)
            mine.discard(name)
        for tool in tools:
            if tool.name in agent.tools and tool.name not in mine:
                report(f"MCP server {connection.name}: tool {tool.name} skipped: the name is taken")
                continue
            agent.add_tool(tool, offer=offered(tool.name))
            mine.add(tool.name)

    async def start(_messages: list[Message]) -> None:
        started = await manager.warm()
        for connection in started:
            sync(connection, manager.tools_of(connection))
        if any(c.resources for c in started):
            agent.add_tool(ReadResourceTool(manager.connections, manager.options.max_result_chars),
                           offer=offered("mcp_read_resource"))

    manager.on_change = sync
    agent.add_hooks(Hooks(on_conversation_start=[start], on_close=[manager.close]))
    return manager


def _prefetch_sdk() -> None:
    """Import the SDK (over a second) in a thread while the rest of the set-up goes on."""
    import sys
    import threading

    if "mcp" in sys.modules:
        return

    def load() -> None:
        import contextlib

        with contextlib.suppress(Exception):
            import mcp  # noqa: F401

    threading.Thread(target=load, name="aiagent-mcp-import", daemon=True).start()
