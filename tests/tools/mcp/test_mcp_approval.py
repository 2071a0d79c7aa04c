"""MCP tools are approved like any tool that runs code and reaches the network; "always"
is saved for the one server tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from aiagent.agent.permissions.policy import PermissionPolicy
from aiagent.agent.tools.mcp.tools import McpTool
from aiagent.infra.store import db
from aiagent.infra.store.approvals import ApprovalStore


def mcp_tool(name: str) -> McpTool:
    connection = SimpleNamespace(name="srv")
    remote = SimpleNamespace(name=name, description="d", input_schema={"type": "object"})
    return McpTool(connection, remote, 1000)  # type: ignore[arg-type]


def test_always_allow_is_per_server_tool(tmp_path: Path) -> None:
    store = ApprovalStore(db.connect(tmp_path / "a.db"))
    policy = PermissionPolicy("prompt", store, workspace=tmp_path, interactive=True)
    add, echo = mcp_tool("add"), mcp_tool("echo")
    assert asyncio.run(policy.decide(add, {})).verdict == "ask"
    policy.record(add, {}, "always")
    assert asyncio.run(policy.decide(add, {"a": 1})).verdict == "allow"
    assert asyncio.run(policy.decide(echo, {})).verdict == "ask"


def test_modes(tmp_path: Path) -> None:
    tool = mcp_tool("add")
    verdicts = [asyncio.run(PermissionPolicy(mode, None, workspace=tmp_path, interactive=True)  # type: ignore[arg-type]
                            .decide(tool, {})).verdict
                for mode in ("read-only", "prompt", "auto-edit", "full-auto")]
    assert verdicts == ["deny", "ask", "ask", "allow"]
