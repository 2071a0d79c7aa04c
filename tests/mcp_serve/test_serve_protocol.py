"""The low-level ``Server`` of ``aiagent mcp serve`` (protocol.py), in process over the SDK's
memory streams: what it offers, progress, a tool's error as ``isError``, a forged
``requestState`` refused."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from aiagent.frontends.mcp_server.protocol import lowlevel


def _tools() -> MCPServer[Any]:
    tools: MCPServer[Any] = MCPServer("aiagent", version="9.9", instructions="what it does")

    @tools.tool()
    async def count(n: int, ctx: Context) -> dict[str, Any]:
        """Count to n."""
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"at {i}")
        return {"counted": n}

    @tools.tool()
    async def refuse() -> str:
        """Always refused."""
        raise ToolError("refused: not here")

    @tools.tool()
    async def crash() -> str:
        """A bug."""
        raise RuntimeError("boom")

    return tools


async def _session(body: Any) -> Any:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.shared.memory import create_client_server_memory_streams

    server = lowlevel(_tools())
    outcome: list[Any] = []
    async with create_client_server_memory_streams() as (client, wire), anyio.create_task_group() as tg:
        tg.start_soon(server.run, wire[0], wire[1], server.create_initialization_options())
        async with ClientSession(client[0], client[1]) as session:
            outcome.append(await session.initialize())
            outcome.append(await body(session))
        tg.cancel_scope.cancel()
    return tuple(outcome)


def test_offers_the_tools_only_with_the_servers_identity() -> None:
    async def body(session: Any) -> Any:
        return await session.list_tools()

    init, listed = asyncio.run(_session(body))
    assert (init.server_info.name, init.server_info.version) == ("aiagent", "9.9")
    assert init.instructions == "what it does"
    caps = init.capabilities
    assert caps.tools is not None and caps.resources is None and caps.prompts is None
    by_name = {t.name: t for t in listed.tools}
    assert set(by_name) == {"count", "refuse", "crash"}
    assert by_name["count"].input_schema["properties"]["n"]["type"] == "integer"


def test_calls_progress_and_errors(caplog: pytest.LogCaptureFixture) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def body(session: Any) -> Any:
        return (await session.call_tool("count", {"n": 3}, progress_callback=on_progress),
                await session.call_tool("count", {"n": "three"}),
                await session.call_tool("refuse", {}),
                await session.call_tool("crash", {}),
                await session.call_tool("no_such_tool", {}))

    with caplog.at_level(logging.WARNING, logger="aiagent.mcp.serve"):
        _, (ok, bad_args, refused, crashed, unknown) = asyncio.run(_session(body))
    assert not ok.is_error and ok.structured_content == {"counted": 3}
    assert progress == [(1, 3, "at 1"), (2, 3, "at 2"), (3, 3, "at 3")]
    assert bad_args.is_error and "n" in bad_args.content[0].text
    assert refused.is_error and refused.content[0].text.endswith("refuse: refused: not here")
    assert crashed.is_error and "boom" not in crashed.content[0].text  # the log has it, not the client
    assert unknown.is_error and "no_such_tool" in unknown.content[0].text
    warned = [r.getMessage() for r in caplog.records if r.name == "aiagent.mcp.serve"]
    assert warned == ["crash failed: RuntimeError('boom')"]  # a bug is logged; a refusal is not


def test_a_forged_request_state_is_refused() -> None:
    from mcp import MCPError

    async def body(session: Any) -> Any:
        with pytest.raises(MCPError) as raised:
            await session.call_tool("count", {"n": 1}, request_state="forged")
        return raised.value

    _, error = asyncio.run(_session(body))
    assert "requestState" in str(error)
