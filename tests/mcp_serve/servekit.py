"""Helpers: ``aiagent mcp serve`` as a subprocess, driven by the official MCP SDK client."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"


def server_env(clean_env: dict[str, str], extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(clean_env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    return {**env, **(extra or {})}


@contextlib.asynccontextmanager
async def serving(folder: Path, env: dict[str, str], errlog: Path,
                  *args: str) -> AsyncIterator[Any]:
    """An initialized ``ClientSession`` on ``aiagent mcp serve ARGS`` run in ``folder``."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "aiagent", "mcp", "serve", *args],
                                   env=env, cwd=str(folder))
    with errlog.open("w+") as err:
        async with stdio_client(params, errlog=err) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


