"""JSON-RPC 2.0 over a child's stdin/stdout, both directions.

Two framings: one JSON object per line (process skills, Starlark workers) or, with
``framing="headers"``, the ``Content-Length`` headers of the Language Server Protocol.

The parent sends requests (``initialize``, ``tool/call``…); the child may send requests back
(``host/read_file``…) which :class:`RpcPeer` answers with ``handler`` while the parent's own
request is pending. Time a request spends waiting for the host is not counted against its
timeout. When the child dies, every pending request fails with :class:`PeerDied`.

The child is started by the one process runner (:mod:`aiagent.infra.process.runner`): its own
process tree, which :meth:`RpcPeer.close` and :meth:`RpcPeer.kill` end with everything the
child started.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, Running, new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE

Framing = Literal["lines", "headers"]

MAX_LINE = 16 * 1024 * 1024
STDERR_KEEP = 4000

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]


class RpcError(Exception):
    """The peer answered with an error object."""

    def __init__(self, message: str, code: int = -32000, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.data = code, data


class PeerDied(Exception):
    """The child exited or closed its output."""


class PeerTimeout(Exception):
    """A request took longer than its limit."""


class _Inbox:
    """The child's output as it arrives: stdout cut into lines, the tail of stderr."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.partial = bytearray()
        self.stderr_tail = ""

    def feed(self, stream: str, data: bytes) -> None:
        if stream == "stderr":
            self.stderr_tail = (self.stderr_tail + data.decode("utf-8", "replace"))[-STDERR_KEEP:]
            return
        self.partial += data
        self._cut()
        if len(self.partial) > MAX_LINE:  # an over-long message: the peer is broken
            self.partial.clear()
            self.lines.put_nowait(None)

    def _cut(self) -> None:
        while (end := self.partial.find(b"\n")) >= 0:
            self.lines.put_nowait(bytes(self.partial[: end + 1]))
            del self.partial[: end + 1]


class _HeaderInbox(_Inbox):
    """``Content-Length: N`` headers, a blank line, then N bytes of JSON (LSP framing)."""

    def _cut(self) -> None:
        while (end := self.partial.find(b"\r\n\r\n")) >= 0:
            length = _content_length(bytes(self.partial[:end]))
            if length is None or length > MAX_LINE:
                self.partial.clear()
                self.lines.put_nowait(None)  # garbage where a header belongs: broken peer
                return
            if len(self.partial) < end + 4 + length:
                return
            self.lines.put_nowait(bytes(self.partial[end + 4:end + 4 + length]))
            del self.partial[:end + 4 + length]


def _content_length(header: bytes) -> int | None:
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


class RpcPeer:
    def __init__(self, running: Running, inbox: _Inbox, handler: Handler,
                 framing: Framing = "lines") -> None:
        self.framing = framing
        self.running = running
        self.inbox = inbox
        self.handler = handler
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._host_busy = 0
        self._host_time = 0.0
        self.closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._reader = asyncio.ensure_future(self._read_loop())
        self._eof = asyncio.ensure_future(self._watch_stdout())

    @property
    def pid(self) -> int:
        return self.running.pid

    @property
    def stderr_tail(self) -> str:
        return self.inbox.stderr_tail

    # ---- sending -------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        stdin = self.running.stdin
        if self.closed or stdin is None or stdin.is_closing():
            raise PeerDied("the process has exited")
        data = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False, default=str).encode()
        if self.framing == "headers":
            stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        else:
            stdin.write(data + b"\n")

    async def request(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        """Send a request and wait for its answer; host time does not count to ``timeout``."""
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        try:
            self._send({"id": rid, "method": method, "params": params})
            await self._drain()
            return await self._wait(future, timeout)
        finally:
            self._pending.pop(rid, None)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        with contextlib.suppress(PeerDied, ConnectionError):
            self._send({"method": method, "params": params})

    async def _drain(self) -> None:
        try:
            if self.running.stdin is not None:
                await self.running.stdin.drain()
        except (ConnectionError, RuntimeError):
            raise PeerDied(self.death_note()) from None

    async def _wait(self, future: asyncio.Future[Any], timeout: float | None) -> Any:
        if timeout is None:
            return await future
        start, host_before = time.monotonic(), self._host_time
        while True:
            spent = time.monotonic() - start - (self._host_time - host_before)
            left = timeout - spent
            if left <= 0 and not self._host_busy:
                raise PeerTimeout(f"no answer within {timeout:g}s")
            done, _ = await asyncio.wait({future}, timeout=max(left, 0.05))
            if done:
                return future.result()

    # ---- receiving -----------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            while (line := await self.inbox.lines.get()) is not None:
                self._dispatch(line)
        finally:
            self.closed = True
            try:
                await self.running.wait_readers(0.5)  # the rest of stderr, for the death note
                await self.running.wait_exit(0.5)
            finally:
                self._fail_pending()  # also when close() cancels this wait

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(PeerDied(self.death_note()))

    async def _watch_stdout(self) -> None:
        """End of the child's stdout (it exited or closed it) ends the conversation."""
        if self.running.readers:
            await asyncio.wait(self.running.readers[:1])
        self.inbox.lines.put_nowait(None)

    def death_note(self) -> str:
        code = self.running.proc.returncode
        lines = [ln for ln in self.stderr_tail.strip().splitlines() if ln.strip()]
        last = f": {lines[-1][:300]}" if lines else ""
        status = f"exited with status {code}" if code is not None else "closed its output"
        return f"the process {status}{last}"

    def _dispatch(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            return  # not protocol output (a stray print); ignore
        if not isinstance(message, dict):
            return
        if "method" in message:
            task = asyncio.ensure_future(self._serve(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        future = self._pending.get(message.get("id"))  # type: ignore[arg-type]
        if future is None or future.done():
            return
        if "error" in message and message["error"] is not None:
            err = message["error"] if isinstance(message["error"], dict) else {"message": str(message["error"])}
            future.set_exception(RpcError(str(err.get("message", "error")), int(err.get("code", -32000)), err.get("data")))
        else:
            future.set_result(message.get("result"))

    async def _serve(self, message: dict[str, Any]) -> None:
        rid = message.get("id")
        params = message.get("params") or {}
        self._host_busy += 1
        start = time.monotonic()
        try:
            result = await self.handler(str(message["method"]), params if isinstance(params, dict) else {"args": params})
            reply: dict[str, Any] = {"id": rid, "result": result}
        except RpcError as exc:
            reply = {"id": rid, "error": {"code": exc.code, "message": str(exc)}}
        except Exception as exc:  # noqa: BLE001 - every host failure goes back as an error
            reply = {"id": rid, "error": {"code": -32000, "message": str(exc) or type(exc).__name__}}
        finally:
            self._host_busy -= 1
            self._host_time += time.monotonic() - start
        if rid is not None:
            with contextlib.suppress(PeerDied, ConnectionError):
                self._send(reply)
                await self._drain()

    # ---- ending --------------------------------------------------------------------

    async def close(self, grace: float = 1.0) -> None:
        """End of input; the child gets ``grace`` seconds to exit, then its tree is killed.
        Whatever it left running is killed too."""
        self.closed = True
        await end_gently(self.running, grace)
        for task in (self._reader, self._eof, *self._tasks):
            task.cancel()
        self._fail_pending()  # a request still waiting gets PeerDied, never hangs

    async def kill(self) -> None:
        """Stop the child now (a runaway, a timeout): its whole tree, then close."""
        self.closed = True
        await self.running.kill(0.5)
        await self.close(grace=0.5)


async def end_gently(running: Running, grace: float = 1.0) -> None:
    """Close the child's stdin, give it ``grace`` seconds to exit, then kill its whole tree
    (and whatever it left running)."""
    if running.stdin is not None:
        with contextlib.suppress(Exception):
            running.stdin.close()
    if not await running.wait_exit(grace):
        await running.kill(grace)
        await running.wait_exit(grace)
    with contextlib.suppress(Exception):
        await running.finish(Limits(kill_grace=grace))


async def spawn_peer(argv: list[str], *, cwd: str, env: dict[str, str], handler: Handler,
                     framing: Framing = "lines") -> RpcPeer:
    inbox = _HeaderInbox() if framing == "headers" else _Inbox()
    running = await spawn(argv, cwd=Path(cwd), env={**env, TAG_VARIABLE: new_tag()},
                          capture=Capture(None, 0, 0, 0), stdin_pipe=True, on_data=inbox.feed)
    return RpcPeer(running, inbox, handler, framing)
