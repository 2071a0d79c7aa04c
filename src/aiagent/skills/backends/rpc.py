"""JSON-RPC 2.0 over a child's stdin/stdout, one JSON object per line, both directions.

The parent sends requests (``initialize``, ``tool/call``…); the child may send requests back
(``host/read_file``…) which :class:`RpcPeer` answers with ``handler`` while the parent's own
request is pending. Time a request spends waiting for the host is not counted against its
timeout. When the child dies, every pending request fails with :class:`PeerDied`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

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


class RpcPeer:
    def __init__(self, proc: asyncio.subprocess.Process, handler: Handler) -> None:
        self.proc = proc
        self.handler = handler
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._host_busy = 0
        self._host_time = 0.0
        self.stderr_tail = ""
        self.closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._reader = asyncio.ensure_future(self._read_loop())
        self._err_reader = asyncio.ensure_future(self._read_stderr())

    @property
    def pid(self) -> int:
        return int(self.proc.pid)

    # ---- sending -------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.closed or self.proc.stdin is None:
            raise PeerDied("the process has exited")
        data = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False, default=str)
        self.proc.stdin.write(data.encode() + b"\n")

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
            if self.proc.stdin is not None:
                await self.proc.stdin.drain()
        except (ConnectionError, RuntimeError):
            raise PeerDied(self._death_note()) from None

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
        assert self.proc.stdout is not None
        try:
            while True:
                line = await self.proc.stdout.readline()
                if not line:
                    break
                self._dispatch(line)
        except (ValueError, asyncio.LimitOverrunError):
            pass  # an over-long line: treat the peer as broken
        finally:
            self.closed = True
            await self._err_done()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 0.5)
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(PeerDied(self._death_note()))

    async def _err_done(self) -> None:
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._err_reader), 0.5)

    async def _read_stderr(self) -> None:
        if self.proc.stderr is None:
            return
        while chunk := await self.proc.stderr.read(65536):
            self.stderr_tail = (self.stderr_tail + chunk.decode("utf-8", "replace"))[-STDERR_KEEP:]

    def _death_note(self) -> str:
        code = self.proc.returncode
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
        self.closed = True
        proc = self.proc
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        if proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                kill_group(proc)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(proc.wait(), grace)
        for task in (self._reader, self._err_reader, *self._tasks):
            task.cancel()


def kill_group(proc: asyncio.subprocess.Process) -> None:
    import os
    import signal

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


async def spawn_peer(
    argv: list[str], *, cwd: str, env: dict[str, str], handler: Handler, preexec: Callable[[], None] | None = None
) -> RpcPeer:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        limit=MAX_LINE,
        preexec_fn=preexec,
    )
    return RpcPeer(proc, handler)
