"""One MCP server over the real transports: the SDK-built server in a real process
(stdio, through aiagent's process runner) and over Streamable HTTP on loopback."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from mcpkit import SERVER

from aiagent.agent.tools.mcp.config import ServerConfig, parse_entry
from aiagent.agent.tools.mcp.connection import McpConnection, McpOptions, ServerDown
from aiagent.agent.tools.mcp.tools import McpTool, ReadResourceTool
from aiagent.contracts.tools import ToolContext, ToolError


def stdio(name: str = "t", **extra: object) -> ServerConfig:
    return parse_entry(name, {"command": sys.executable, "args": [str(SERVER)], **extra}, "test", {})


def connect(config: ServerConfig, tmp_path: Path, env: dict[str, str] | None = None,
            **options: object) -> McpConnection:
    return McpConnection(config, env=dict(os.environ if env is None else env), workspace=tmp_path,
                         options=McpOptions(**options))  # type: ignore[arg-type]


def tool(conn: McpConnection, name: str) -> McpTool:
    remote = next(t for t in conn.tools if t.name == name)
    return McpTool(conn, remote, conn.options.max_result_chars)


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_stdio_server_lists_and_calls_tools(tmp_path: Path) -> None:
    async def main() -> tuple[list[str], str, list[str]]:
        conn = connect(stdio(), tmp_path)
        try:
            await conn.ensure()
            names = [t.name for t in conn.tools]
            events: list[object] = []
            ctx = ToolContext(workspace=tmp_path, call_id="c1", emit=events.append)
            result = await tool(conn, "add").run({"a": 2, "b": 40}, ctx)
            slow = await tool(conn, "slow").run({"steps": 3}, ctx)
            assert slow.content == "slow done"
            return names, result.content, [e.chunk for e in events]  # type: ignore[attr-defined]
        finally:
            await conn.close()

    names, answer, progress = run(main())  # type: ignore[misc]
    assert {"echo", "add", "slow", "hang", "crash", "big"} <= set(names)
    assert answer == "42"
    assert progress == ["[t__slow] 1/3 step 1\n", "[t__slow] 2/3 step 2\n", "[t__slow] 3/3 step 3\n"]


def test_http_server_on_loopback(tmp_path: Path, http_server: str) -> None:
    config = parse_entry("web", {"url": http_server, "headers": {"X-Test": "1"}}, "test", {})

    async def main() -> tuple[str, str]:
        conn = connect(config, tmp_path)
        try:
            await conn.ensure()
            echo = await tool(conn, "echo").run({"text": "hi"}, ToolContext(workspace=tmp_path))
            read = ReadResourceTool({"web": conn}, 1000)
            note = await read.run({"server": "web", "uri": "note://hello"}, ToolContext(workspace=tmp_path))
            return echo.content, note.content
        finally:
            await conn.close()

    assert run(main()) == ("echo: hi", "hello from a resource")


def test_server_gets_no_credentials_unless_configured(tmp_path: Path) -> None:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-secret", "MY_SERVICE_TOKEN": "t0k"}

    async def ask(config: ServerConfig) -> list[str]:
        conn = connect(config, tmp_path, env)
        try:
            await conn.ensure()
            has = tool(conn, "env_has")
            ctx = ToolContext(workspace=tmp_path)
            return [(await has.run({"name": n}, ctx)).content
                    for n in ("ANTHROPIC_API_KEY", "MY_SERVICE_TOKEN", "PATH")]
        finally:
            await conn.close()

    assert run(ask(stdio())) == ["no", "no", "yes"]
    passed = stdio(env={"MY_SERVICE_TOKEN": "${MY_SERVICE_TOKEN}"})
    passed.env = {"MY_SERVICE_TOKEN": env["MY_SERVICE_TOKEN"]}
    assert run(ask(passed)) == ["no", "yes", "yes"]


def test_missing_command_is_one_line_and_the_next_server_works(tmp_path: Path) -> None:
    async def main() -> str:
        bad = connect(parse_entry("bad", {"command": "/no/such/mcp-server"}, "test", {}), tmp_path)
        with pytest.raises(ServerDown) as info:
            await bad.ensure()
        good = connect(stdio(), tmp_path)
        try:
            await good.ensure()
            result = await tool(good, "echo").run({"text": "ok"}, ToolContext(workspace=tmp_path))
        finally:
            await good.close()
        assert "\n" not in str(info.value)
        return f"{info.value}|{result.content}"

    message, answer = str(run(main())).split("|")
    assert message.startswith("MCP server bad could not start") and "mcp-server" in message
    assert answer == "echo: ok"


def test_garbage_on_stdout_is_skipped(tmp_path: Path) -> None:
    async def main() -> tuple[str, int]:
        conn = connect(stdio(env={"MCP_TEST_GARBAGE": "1"}), tmp_path)
        try:
            await conn.ensure()
            result = await tool(conn, "echo").run({"text": "still"}, ToolContext(workspace=tmp_path))
            return result.content, conn.output.garbage_lines
        finally:
            await conn.close()

    assert run(main()) == ("echo: still", 2)


def test_crash_mid_call_is_reported_and_the_server_restarts(tmp_path: Path) -> None:
    async def main() -> tuple[str, str, int]:
        conn = connect(stdio(), tmp_path)
        try:
            await conn.ensure()
            ctx = ToolContext(workspace=tmp_path)
            with pytest.raises(ToolError) as info:
                await tool(conn, "crash").run({}, ctx)
            again = await tool(conn, "echo").run({"text": "back"}, ctx)
            return str(info.value), again.content, conn.starts
        finally:
            await conn.close()

    message, answer, starts = run(main())  # type: ignore[misc]
    assert "exited with code 3" in message and "crashing on purpose" in message
    assert "started again on next use" in message
    assert answer == "echo: back" and starts == 2


def test_hanging_call_times_out_and_the_server_still_answers(tmp_path: Path) -> None:
    async def main() -> tuple[str, float, str]:
        conn = connect(stdio(call_timeout=1.0), tmp_path)
        try:
            await conn.ensure()
            ctx = ToolContext(workspace=tmp_path)
            start = time.monotonic()
            with pytest.raises(ToolError) as info:
                await tool(conn, "hang").run({}, ctx)
            took = time.monotonic() - start
            after = await tool(conn, "echo").run({"text": "alive"}, ctx)
            return str(info.value), took, after.content
        finally:
            await conn.close()

    message, took, after = run(main())  # type: ignore[misc]
    assert "hang" in message and "tim" in message.lower()
    assert took < 5 and after == "echo: alive"


def test_huge_result_is_refused_with_bounded_memory(tmp_path: Path) -> None:
    async def main() -> tuple[str, str]:
        conn = connect(stdio(call_timeout=60.0), tmp_path, max_message_bytes=1024 * 1024,
                       max_result_chars=1000)
        try:
            await conn.ensure()
            ctx = ToolContext(workspace=tmp_path)
            with pytest.raises(ToolError) as info:
                await tool(conn, "big").run({"size": 50 * 1024 * 1024}, ctx)
            small = await tool(conn, "big").run({"size": 5000}, ctx)
            return str(info.value), small.content
        finally:
            await conn.close()

    message, small = run(main())  # type: ignore[misc]
    assert "over the limit of 1048576 bytes" in message
    assert len(small) < 1100 and "characters cut" in small


def test_tool_list_changes_are_picked_up(tmp_path: Path) -> None:
    async def main() -> list[list[str]]:
        seen: list[list[str]] = []
        conn = connect(stdio(), tmp_path)
        conn.on_tools_changed = lambda c: seen.append([t.name for t in c.tools])
        try:
            await conn.ensure()
            await tool(conn, "grow").run({}, ToolContext(workspace=tmp_path))
            for _ in range(100):
                if seen:
                    break
                await asyncio.sleep(0.05)
            return seen
        finally:
            await conn.close()

    seen = run(main())
    assert seen and "extra" in seen[-1]  # type: ignore[index]


def test_closing_kills_the_server_process(tmp_path: Path) -> None:
    async def main() -> int:
        conn = connect(stdio(), tmp_path)
        await conn.ensure()
        pid = conn.session is not None and _server_pid(tmp_path)
        await conn.close()
        return int(pid)

    pid = run(main())
    assert pid
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(int(pid)):  # type: ignore[arg-type]
        time.sleep(0.05)
    assert not _alive(int(pid))  # type: ignore[arg-type]


def _server_pid(tmp_path: Path) -> int:
    import psutil

    for proc in psutil.process_iter(["cmdline", "cwd"]):
        cmd = proc.info.get("cmdline") or []
        if str(SERVER) in cmd and proc.info.get("cwd") == str(tmp_path):
            return int(proc.pid)
    return 0


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
