"""The MCP reference test server from npm (``@modelcontextprotocol/server-everything``,
installed by .ci/run; its path in ``AIAGENT_MCP_EVERYTHING``): a peer written by others
in another language, over stdio."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from aiagent.agent.tools.mcp.config import parse_entry
from aiagent.agent.tools.mcp.connection import McpConnection, McpOptions
from aiagent.agent.tools.mcp.tools import McpTool, ReadResourceTool, check_tool
from aiagent.contracts.tools import ToolContext

VAR = "AIAGENT_MCP_EVERYTHING"


def _server() -> str:
    value = os.environ.get(VAR, "")
    if value and Path(value).is_file():
        return value
    reason = f"needs the npm MCP test server: {VAR} is {'not set' if not value else 'not a file'} (.ci/run installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} — in CI this test must run", pytrace=False)
    pytest.skip(f"!!! SKIPPED: {reason}")


def test_reference_server_tools_progress_and_resources(tmp_path: Path) -> None:
    config = parse_entry("ev", {"command": _server(), "args": ["stdio"]}, "test", {})

    async def main() -> dict[str, object]:
        conn = McpConnection(config, env=dict(os.environ), workspace=tmp_path,
                             options=McpOptions(startup_timeout=60))
        try:
            await conn.ensure()
            tools = {t.name: t for t in conn.tools}
            assert all(check_tool("ev", t) is None for t in conn.tools)
            events: list[object] = []
            ctx = ToolContext(workspace=tmp_path, call_id="c", emit=events.append)
            out: dict[str, object] = {}
            out["echo"] = (await McpTool(conn, tools["echo"], 10_000).run({"message": "hi"}, ctx)).content
            out["sum"] = (await McpTool(conn, tools["get-sum"], 10_000).run({"a": 2, "b": 3}, ctx)).content
            out["image"] = (await McpTool(conn, tools["get-tiny-image"], 10_000).run({}, ctx)).images
            long = McpTool(conn, tools["trigger-long-running-operation"], 10_000)
            out["long"] = (await long.run({"duration": 1, "steps": 2}, ctx)).content
            out["progress"] = [e.chunk for e in events]  # type: ignore[attr-defined]
            uri = conn.resources[0].uri
            read = ReadResourceTool({"ev": conn}, 10_000)
            out["resource"] = (await read.run({"server": "ev", "uri": uri}, ctx)).content
            return out
        finally:
            await conn.close()

    out = asyncio.run(main())
    assert out["echo"] == "Echo: hi"
    assert "5" in str(out["sum"])
    images = out["image"]  # the tiny image goes through as an image part
    assert [i.media_type for i in images] == ["image/png"], images  # type: ignore[attr-defined]
    assert "Long running operation completed" in str(out["long"])
    assert len(out["progress"]) == 2  # type: ignore[arg-type]
    assert len(str(out["resource"])) > 20
