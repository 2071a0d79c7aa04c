"""MCP client speed: the first tool call of a stdio server (start included) and the cost of
later calls, next to the SDK's own stdio client (median of N).

    .venv/bin/python bench/bench_mcp.py [-n 5] [--calls 50]

Servers: ``tiny`` (bench/mcp_tiny_server.py, standard library only: the client's own cost),
``sdk`` (tests/tools/mcp/server_app.py, built with the mcp SDK: its import dominates), and
``everything`` (the npm reference server) when ``AIAGENT_MCP_EVERYTHING`` names it.
Targets (issue 17): first call <= 1.5 s including start (the "first answer" column: a new
process from its spawn to the first tool result); later calls <= 20 ms overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVERS = {
    "tiny": ([sys.executable, str(HERE / "mcp_tiny_server.py")], "echo", {"text": "hi"}),
    "sdk": ([sys.executable, str(HERE.parent / "tests/tools/mcp/server_app.py")], "echo", {"text": "hi"}),
}
if os.environ.get("AIAGENT_MCP_EVERYTHING"):
    SERVERS["everything"] = ([os.environ["AIAGENT_MCP_EVERYTHING"], "stdio"], "echo", {"message": "hi"})

FRESH = """
import asyncio, json, os, sys, time
from pathlib import Path
t0 = time.perf_counter()
from aiagent.contracts.tools import ToolContext
from aiagent.agent.tools.mcp.config import parse_entry
from aiagent.agent.tools.mcp.connection import McpConnection, McpOptions
from aiagent.agent.tools.mcp.tools import McpTool
argv, tool, args = json.loads(sys.argv[1])
async def main():
    conn = McpConnection(parse_entry("b", {"command": argv[0], "args": argv[1:]}, "bench", {}),
                         env=dict(os.environ), workspace=Path.cwd(), options=McpOptions(startup_timeout=120))
    await conn.ensure()
    remote = next(t for t in conn.tools if t.name == tool)
    await McpTool(conn, remote, 10000).run(args, ToolContext(workspace=Path.cwd()))
    took, answered = time.perf_counter() - t0, time.time()
    await conn.close()
    return took, answered
print(*asyncio.run(main()))
"""


def fresh_first_call(server: str) -> tuple[float, float, float]:
    """(wall time from spawning a new process to its first answer — the target —, the same
    after the interpreter start, the whole process: closing the server and exiting too)."""
    import json

    spawned, start = time.time(), time.perf_counter()
    out = subprocess.run([sys.executable, "-c", FRESH, json.dumps(SERVERS[server])], check=True,
                         capture_output=True, text=True).stdout
    whole = time.perf_counter() - start
    took, answered = map(float, out.strip().splitlines()[-1].split())
    return answered - spawned, took, whole


async def warm(server: str, calls: int) -> tuple[float, float, float]:
    """(first call with the SDK imported, median later call: ours, median later call: SDK)."""
    from aiagent.agent.tools.mcp.config import parse_entry
    from aiagent.agent.tools.mcp.connection import McpConnection, McpOptions
    from aiagent.agent.tools.mcp.tools import McpTool
    from aiagent.contracts.tools import ToolContext

    argv, tool, args = SERVERS[server]
    ctx = ToolContext(workspace=Path.cwd())
    start = time.perf_counter()
    conn = McpConnection(parse_entry("b", {"command": argv[0], "args": argv[1:]}, "bench", {}),
                         env=dict(os.environ), workspace=Path.cwd(), options=McpOptions(startup_timeout=120))
    await conn.ensure()
    ours = McpTool(conn, next(t for t in conn.tools if t.name == tool), 10000)
    await ours.run(args, ctx)
    first = time.perf_counter() - start
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        await ours.run(args, ctx)
        times.append(time.perf_counter() - t)
    await conn.close()
    return first, statistics.median(times), await sdk_calls(argv, tool, args, calls)


async def sdk_calls(argv: list[str], tool: str, args: dict[str, object], calls: int) -> float:
    """The peer: the SDK's own stdio client and session, same server, same call."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.call_tool(tool, args)
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            await session.call_tool(tool, args)
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=5)
    parser.add_argument("--calls", type=int, default=50)
    opts = parser.parse_args()
    print(f"{'server':<11} {'first answer':>13} {'(after start)':>14} {'whole process':>14} {'SDK imported':>13} "
          f"{'later: ours':>12} {'later: SDK':>11} {'overhead':>9}")
    for server in SERVERS:
        fresh = [fresh_first_call(server) for _ in range(opts.n)]
        runs = [asyncio.run(warm(server, opts.calls)) for _ in range(opts.n)]
        med = [statistics.median(x) for x in zip(*fresh, strict=True)]
        first, ours, sdk = (statistics.median(x) for x in zip(*runs, strict=True))
        print(f"{server:<11} {med[0]:>12.3f}s {med[1]:>13.3f}s {med[2]:>13.3f}s {first:>12.3f}s "
              f"{ours * 1000:>10.2f}ms {sdk * 1000:>9.2f}ms {(ours - sdk) * 1000:>7.2f}ms")
    print(f"(median of {opts.n} runs; later calls: median of {opts.calls} each; load: {os.getloadavg()[0]:.1f}; "
          f"bytecode: {'not written' if sys.dont_write_bytecode else 'cached'})\n"
          "first answer: a new process from its spawn to the first tool result, the server's start "
          "included (target <= 1.5 s); whole process: also closing the server and exiting")


if __name__ == "__main__":
    main()
