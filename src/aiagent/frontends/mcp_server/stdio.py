"""The server's stdio transport: newline-delimited JSON-RPC, as the SDK's own, but

* a line longer than ``cap`` bytes is never held whole in memory (its first and last 4 KiB
  are kept, through the MCP client's :class:`LineSplitter`): it is answered with a JSON-RPC
  error for its request id when that can be read, and dropped;
* a line that is not a JSON-RPC message is answered with a parse error (-32700) or an
  invalid-request error (-32600) instead of being dropped in silence;
* the protocol's descriptors are private duplicates: fd 0 then reads ``/dev/null`` and
  fd 1 writes to stderr, so nothing a library or a child prints reaches the wire.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import stat
import sys
import threading
from collections.abc import AsyncIterator
from typing import IO, Any

log = logging.getLogger("aiagent.mcp.serve")

PARSE_ERROR, INVALID_REQUEST, REQUEST_TOO_LARGE = -32700, -32600, -32600
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')


def claim_stdio() -> tuple[int, IO[bytes]]:
    """(the protocol's input fd, its output stream); fd 0 → /dev/null, fd 1 → stderr."""
    sys.stdout.flush()
    wire_in = os.dup(0)
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return wire_in, wire_out


def error_line(request_id: Any, code: int, message: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(body).encode() + b"\n"


def readable_id(head: bytes, tail: bytes) -> Any:
    """The request id of a line too long to parse, when its start or end shows it."""
    for part in (head, tail):
        found = _ID.search(part)
        if found is not None:
            return json.loads(found.group(1))
    return None


@contextlib.asynccontextmanager
async def capped_stdio(fd: int, out: IO[bytes], cap: int) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) of SDK ``SessionMessage``s over ``fd`` and ``out``."""
    import math

    import anyio

    from aiagent.agent.tools.mcp.transport import LineSplitter

    read_send, read_recv = anyio.create_memory_object_stream[Any](math.inf)
    write_send, write_recv = anyio.create_memory_object_stream[Any](16)
    lock = threading.Lock()

    def write(data: bytes) -> None:
        with lock:
            try:
                out.write(data)
                out.flush()
            except (OSError, ValueError):  # the client went away: nothing to tell it
                pass

    def on_line(line: bytes) -> None:
        message = _parse(line, write)
        if message is not None:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                read_send.send_nowait(message)

    def on_oversize(head: bytes, tail: bytes, size: int) -> None:
        log.warning("a message of %d bytes was refused (the limit is %d)", size, cap)
        write(error_line(readable_id(head, tail), REQUEST_TOO_LARGE,
                         f"message of {size} bytes refused: the limit is {cap} bytes"))

    splitter = LineSplitter(cap, on_line, on_oversize)

    async def writer() -> None:
        async for message in write_recv:
            data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            await anyio.to_thread.run_sync(write, data.encode() + b"\n")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_read_input, fd, splitter, read_send)
        tasks.start_soon(writer)
        try:
            yield read_recv, write_send
        finally:
            tasks.cancel_scope.cancel()


def _parse(line: bytes, write: Any) -> Any:
    """The SessionMessage of ``line``, or None after answering it with an error."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    try:
        raw = json.loads(line)
    except ValueError as exc:
        write(error_line(None, PARSE_ERROR, f"parse error: {exc}"))
        return None
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python(raw, by_name=False))
    except ValueError:
        request_id = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
            request_id = None
        write(error_line(request_id, INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 message"))
        return None


async def _read_input(fd: int, splitter: Any, read_send: Any) -> None:
    """Feed the splitter until end of input, then close the read stream (the session ends)."""
    import asyncio

    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            reader = asyncio.StreamReader()
            loop = asyncio.get_running_loop()
            pipe = os.fdopen(fd, "rb", buffering=0)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
            while data := await reader.read(65536):
                splitter.feed(data)
        else:
            await _read_in_thread(fd, splitter)
        splitter.feed(b"\n")  # a last line without its newline still counts
    except OSError as exc:
        log.warning("reading the client's messages failed: %s", exc)
    finally:
        read_send.close()


async def _read_in_thread(fd: int, splitter: Any) -> None:
    """A file, /dev/null or a terminal: blocking reads in a daemon thread."""
    import asyncio

    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def pump() -> None:
        try:
            while data := os.read(fd, 65536):
                loop.call_soon_threadsafe(splitter.feed, data)
        except OSError:
            pass
        finally:
            loop.call_soon_threadsafe(finish)

    def finish() -> None:
        if not done.done():
            done.set_result(None)

    threading.Thread(target=pump, name="mcp-serve-stdin", daemon=True).start()
    await done
