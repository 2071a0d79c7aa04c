"""Transports to an MCP server: the SDK's ``ClientSession`` reads and writes two memory
streams, and these fill and drain them.

* stdio: the server is spawned by :func:`aiagent.infra.process.runner.spawn` (its own process
  tree, supervised, killed with everything it started), with the environment of the agent
  less credentials (:func:`aiagent.infra.process.environment.without_secrets`) plus the entry's
  own ``env``. Its stdout is split into lines here: a line that is not JSON-RPC is skipped
  and counted; a line longer than ``max_message_bytes`` is never held in memory: it is
  answered, when its request id can be read at its start or end, with an error.
* Streamable HTTP and SSE: the SDK's own clients, with the configured headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.agent.tools.mcp.config import ServerConfig, bearer_token
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.environment import without_secrets
from aiagent.infra.process.jsonrpc import end_gently
from aiagent.infra.process.runner import new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE

_HEAD = 4096
_ID_AT_START = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"]{0,200}")')
_ID_AT_END = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"]{0,200}")\s*\}\s*$')


@dataclass(slots=True)
class ServerOutput:
    """What a server printed besides its messages: the end of stderr, skipped lines."""

    stderr: bytearray = field(default_factory=bytearray)
    garbage_lines: int = 0
    last_garbage: str = ""
    oversized: int = 0
    exit_code: int | None = None

    def add_stderr(self, data: bytes, keep: int = 4096) -> None:
        self.stderr += data
        del self.stderr[:-keep]

    def stderr_tail(self, lines: int = 3) -> str:
        text = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return " | ".join(text[-lines:])


class LineSplitter:
    """Bytes → lines, each line at most ``cap`` bytes in memory: a longer one keeps only its
    first and last 4 KiB and goes to ``on_oversize(head, tail, size)``."""

    def __init__(self, cap: int, on_line: Callable[[bytes], None],
                 on_oversize: Callable[[bytes, bytes, int], None]) -> None:
        self.cap, self.on_line, self.on_oversize = cap, on_line, on_oversize
        self.buffer = bytearray()
        self.head = b""
        self.dropped = 0  # bytes of the current line not kept (0: not oversized)

    def feed(self, data: bytes) -> None:
        while data:
            cut = data.find(b"\n")
            part, data = (data, b"") if cut < 0 else (data[:cut], data[cut + 1:])
            self._take(part)
            if cut >= 0:
                self._end_line()

    def _take(self, part: bytes) -> None:
        self.buffer += part
        if len(self.buffer) > self.cap or self.dropped:
            if not self.dropped:
                self.head = bytes(self.buffer[:_HEAD])
            excess = len(self.buffer) - _HEAD
            if excess > 0:
                self.dropped += excess
                del self.buffer[:excess]

    def _end_line(self) -> None:
        if self.dropped:
            size = self.dropped + len(self.buffer)
            self.on_oversize(self.head, bytes(self.buffer), size)
            self.dropped, self.head = 0, b""
        elif self.buffer.strip():
            self.on_line(bytes(self.buffer))
        self.buffer.clear()


def oversize_reply(head: bytes, tail: bytes, size: int, cap: int) -> dict[str, Any] | None:
    """A JSON-RPC error for the request a too-long line answered, if its id can be read."""
    found = _ID_AT_START.search(head) or _ID_AT_END.search(tail)
    if found is None:
        return None
    return {"jsonrpc": "2.0", "id": json.loads(found.group(1)),
            "error": {"code": -32001, "message": f"the server's reply is {size} bytes, over the "
                      f"limit of {cap} bytes ([mcp] max_message_bytes); it was dropped"}}


def server_env(config: ServerConfig, env: Mapping[str, str]) -> dict[str, str]:
    """The agent's environment without credentials, plus what the entry names itself."""

    return {**without_secrets(env), **config.env}


@contextlib.asynccontextmanager
async def stdio_transport(config: ServerConfig, *, env: Mapping[str, str], workspace: Path,
                          output: ServerOutput, max_message_bytes: int,
                          on_end: Callable[[], None] = lambda: None) -> AsyncIterator[Any]:
    """Spawn the server through the one runner; yield (read stream, write stream).
    ``on_end`` is called when its output ends (it exited, or closed stdout).

    The SDK's message types are imported only when the first line arrives: the server is
    spawned first, so it starts while this process imports the SDK (about a second)."""
    import anyio


    read_send, read_recv = anyio.create_memory_object_stream[Any](math.inf)
    write_send, write_recv = anyio.create_memory_object_stream[Any](16)

    def on_line(line: bytes) -> None:
        import mcp_types
        from mcp.shared.message import SessionMessage

        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            output.garbage_lines += 1
            output.last_garbage = line[:200].decode("utf-8", "replace")
            return
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            read_send.send_nowait(SessionMessage(message))

    def on_oversize(head: bytes, tail: bytes, size: int) -> None:
        output.oversized += 1
        reply = oversize_reply(head, tail, size, max_message_bytes)
        if reply is not None:
            on_line(json.dumps(reply).encode())

    splitter = LineSplitter(max_message_bytes, on_line, on_oversize)

    def on_data(stream: str, data: bytes) -> None:
        if stream == "stdout":
            splitter.feed(data)
        else:
            output.add_stderr(data)

    cwd = Path(config.cwd) if config.cwd else workspace
    if not cwd.is_absolute():
        cwd = workspace / cwd
    argv = [config.command, *config.args]
    running = await spawn(argv, cwd=cwd, env={**server_env(config, env), TAG_VARIABLE: new_tag()},
                          capture=Capture(None, 0, 0, 0), stdin_pipe=True, on_data=on_data)

    async def writer() -> None:
        stdin = running.stdin
        assert stdin is not None
        async for message in write_recv:
            data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            stdin.write(data.encode() + b"\n")
            await stdin.drain()

    async def end_of_output() -> None:
        await asyncio.gather(*running.readers, return_exceptions=True)
        output.exit_code = running.exit_status() if await running.wait_exit(1.0) else None
        read_send.close()
        on_end()

    tasks = [asyncio.ensure_future(writer()), asyncio.ensure_future(end_of_output())]
    try:
        yield read_recv, write_send
    finally:
        await asyncio.shield(_stop(running, tasks))
        read_send.close()
        write_send.close()


async def _stop(running: Any, tasks: Sequence[asyncio.Future[None]], grace: float = 1.0) -> None:
    """Close the server's stdin, give it ``grace`` seconds, then kill its whole tree."""

    await end_gently(running, grace)
    for task in tasks:
        task.cancel()


@contextlib.asynccontextmanager
async def http_transport(config: ServerConfig, *, env: Mapping[str, str],
                         timeout: float) -> AsyncIterator[Any]:
    """The SDK's Streamable HTTP (or SSE) client with the entry's headers and token."""
    headers = dict(config.headers)
    token = bearer_token(config, env)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if config.transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(config.url, headers=headers, timeout=timeout) as streams:
            yield streams[0], streams[1]
        return
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=headers) as client, \
            streamable_http_client(config.url, http_client=client) as streams:
        yield streams[0], streams[1]
