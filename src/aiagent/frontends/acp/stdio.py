"""The protocol's channel: newline-delimited JSON-RPC on the process's stdin/stdout.

:func:`claim_stdout` keeps the real stdout for protocol messages only and points file
descriptor 1 (``print``, a library's stray output, anything inherited) at stderr.
:class:`StdioTransport` is the message transport the ``acp`` package's connection runs on;
unlike the package's own, it answers a line that is not JSON, or not a JSON-RPC message,
with a JSON-RPC error instead of dropping it, and never lets such a line end the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import stat
import sys
import threading
from typing import IO, Any

log = logging.getLogger("aiagent.acp")

MAX_LINE = 50 * 1024 * 1024  # a prompt with embedded files may be large; more is refused
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def claim_stdout() -> IO[bytes]:
    """The protocol's stdout; fd 1 and ``sys.stdout`` now write to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def error_response(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def check_message(message: Any) -> str | None:
    """Why ``message`` is not a JSON-RPC message this connection can route, or None."""
    if not isinstance(message, dict):
        return "a JSON-RPC message is a JSON object"
    if "id" in message and not isinstance(message["id"], (str, int, type(None))) \
            or isinstance(message.get("id"), bool):
        return "id must be a string, a number or null"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method must be a string"
        if "params" in message and not isinstance(message["params"], (dict, list, type(None))):
            return "params must be an object or an array"
    elif "id" not in message or not ("result" in message or "error" in message):
        return "neither a request, a notification nor a response"
    return None


class StdioTransport:
    """Messages in from ``reader`` (stdin), out through ``out`` (the claimed stdout)."""

    def __init__(self, reader: asyncio.StreamReader, out: IO[bytes]) -> None:
        self.reader, self.out = reader, out
        self._lock = asyncio.Lock()
        self._closed = False

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self._lock:
            if self._closed:
                raise ConnectionError("the client's stdin is closed")
            try:
                await asyncio.to_thread(self._write, data)
            except OSError as exc:  # the client went away (EPIPE)
                self._closed = True
                raise ConnectionError(f"cannot write to the client: {exc}") from None

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    async def receive(self) -> dict[str, Any] | None:
        """The next routable message; None at end of input."""
        while True:
            line = await self._line()
            if line is None:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                await self._refuse(None, PARSE_ERROR, f"parse error: {exc}")
                continue
            problem = check_message(message)
            if problem is None:
                return message  # type: ignore[no-any-return]
            request_id = message.get("id") if isinstance(message, dict) else None
            await self._refuse(request_id if isinstance(request_id, (str, int)) else None,
                               INVALID_REQUEST, f"invalid request: {problem}")

    async def _line(self) -> bytes | None:
        try:
            line = await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None
        except asyncio.LimitOverrunError:
            await self._skip_long_line()
            await self._refuse(None, INVALID_REQUEST, f"message longer than {MAX_LINE} bytes")
            return b""
        return line

    async def _skip_long_line(self) -> None:
        while True:
            try:
                await self.reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                await self.reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return

    async def _refuse(self, request_id: Any, code: int, message: str) -> None:
        log.warning("acp: %s", message)
        with contextlib.suppress(ConnectionError):
            await self.send(error_response(request_id, code, message))

    async def close(self) -> None:
        self._closed = True


async def stdin_reader() -> asyncio.StreamReader:
    """A stream of the process's stdin (a pipe, a socket, or a file read in a thread)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    mode = os.fstat(sys.stdin.fileno()).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:  # a file, /dev/null or a terminal: read it in a thread
        _feed_in_thread(loop, reader)
    return reader


def _feed_in_thread(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    def pump() -> None:
        try:
            while data := sys.stdin.buffer.readline():
                loop.call_soon_threadsafe(reader.feed_data, data)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="acp-stdin", daemon=True).start()
