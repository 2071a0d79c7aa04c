"""One MCP server: started on first need (with a start-up time-out), called with a call
time-out, restarted on the next use after it crashed; its tool list is kept current.

The SDK's ``ClientSession`` runs anyio task groups that must be entered and left by the
same task, so each server has an owner task that opens the transport and the session,
says it is ready, and waits until it is told to stop or its server goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.agent.tools.mcp.config import ServerConfig
from aiagent.agent.tools.mcp.transport import ServerOutput, http_transport, stdio_transport

MAX_PAGES = 20
Progress = Callable[[float, float | None, str | None], Awaitable[None]]


class ServerDown(Exception):
    """The server could not start, or went away: one line for the user or the model."""


@dataclass(slots=True)
class McpOptions:
    """``[mcp]`` settings that apply to every server (an entry may override the time-outs)."""

    startup_timeout: float = 30.0
    call_timeout: float = 120.0
    max_result_chars: int = 100_000
    max_message_bytes: int = 16 * 1024 * 1024

    @classmethod
    def from_settings(cls, settings: Any) -> McpOptions:
        table = settings.mcp
        return cls(table.startup_timeout, table.call_timeout, table.max_result_chars,
                   table.max_message_bytes)


class McpConnection:
    def __init__(self, config: ServerConfig, *, env: Mapping[str, str], workspace: Path,
                 options: McpOptions, on_tools_changed: Callable[[McpConnection], None] | None = None,
                 ) -> None:
        self.config, self.env, self.workspace, self.options = config, env, workspace, options
        self.on_tools_changed = on_tools_changed
        self.tools: list[Any] = []  # mcp_types.Tool
        self.resources: list[Any] = []
        self.prompts: list[Any] = []
        self.session: Any = None
        self.output = ServerOutput()
        self.starts = 0
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._lock = asyncio.Lock()
        self._background: set[asyncio.Task[Any]] = set()

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def startup_timeout(self) -> float:
        return self.config.startup_timeout or self.options.startup_timeout

    @property
    def call_timeout(self) -> float:
        return self.config.call_timeout or self.options.call_timeout

    @property
    def alive(self) -> bool:
        return self.session is not None and not self._gone.is_set()

    # ---- starting and stopping ---------------------------------------------------------

    async def ensure(self) -> Any:
        """The live session, starting (or restarting) the server if needed."""
        async with self._lock:
            if not self.alive:
                await self._halt()
                await self._start()
            return self.session

    async def _start(self) -> None:
        self.output, self._stop, self._gone = ServerOutput(), asyncio.Event(), asyncio.Event()
        self.tools, self.resources, self.prompts = [], [], []
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.starts += 1
        self._task = asyncio.create_task(self._own(ready))
        try:
            async with asyncio.timeout(self.startup_timeout):
                await asyncio.shield(ready)
        except TimeoutError:
            await self._halt()
            raise ServerDown(f"MCP server {self.name} did not start within "
                             f"{self.startup_timeout:g} s{self._why()}") from None
        except ServerDown:
            await self._halt()
            raise
        except Exception as exc:  # noqa: BLE001 - every failure to start is one line
            await self._halt()
            detail = f"program not found: {self.config.command}" if _missing(exc) else _brief(exc)
            raise ServerDown(f"MCP server {self.name} could not start: {detail}{self._why()}") from None

    async def _own(self, ready: asyncio.Future[None]) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                from mcp import ClientSession  # after the spawn: the server starts meanwhile

                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._on_message))
                result = await session.initialize()
                await self._list(session, result.capabilities)
                self.session = session
                ready.set_result(None)
                await _first(self._stop.wait(), self._gone.wait())
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(ServerDown(f"MCP server {self.name}: start cancelled"))
            raise
        except BaseException as exc:  # noqa: BLE001 - reported through ``ready`` or on use
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ServerDown(str(exc)))
        finally:
            self.session = None
            self._gone.set()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self.config.starts_process:
            return stdio_transport(self.config, env=self.env, workspace=self.workspace,
                                   output=self.output, on_end=self._gone.set,
                                   max_message_bytes=self.options.max_message_bytes)
        return http_transport(self.config, env=self.env, timeout=self.startup_timeout)

    async def _halt(self) -> None:
        task = self._task
        self._task = None
        if task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), 5.0)
        except (TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        async with self._lock:
            await self._halt()

    # ---- what the server offers --------------------------------------------------------

    async def _list(self, session: Any, capabilities: Any) -> None:
        self.tools = await _pages(session.list_tools, "tools")
        self.resources = await _pages(session.list_resources, "resources") \
            if getattr(capabilities, "resources", None) else []
        self.prompts = await _pages(session.list_prompts, "prompts") \
            if getattr(capabilities, "prompts", None) else []

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", "") == "notifications/tools/list_changed":
            task = asyncio.ensure_future(self._relist())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _relist(self) -> None:
        session = self.session
        if session is None:
            return
        with contextlib.suppress(Exception):
            self.tools = await asyncio.wait_for(_pages(session.list_tools, "tools"), self.call_timeout)
            if self.on_tools_changed is not None:
                self.on_tools_changed(self)

    # ---- calls -------------------------------------------------------------------------

    async def call_tool(self, name: str, args: dict[str, Any], *, progress: Progress | None = None,
                        cancel: asyncio.Event | None = None) -> Any:
        session = await self.ensure()
        return await self._guarded(session.call_tool(name, args, read_timeout_seconds=self.call_timeout,
                                                     progress_callback=progress),
                                   f"tool {name}", cancel)

    async def read_resource(self, uri: str) -> Any:
        session = await self.ensure()
        return await self._guarded(session.read_resource(uri), f"resource {uri}", None)

    async def get_prompt(self, name: str, args: dict[str, str]) -> Any:
        session = await self.ensure()
        return await self._guarded(session.get_prompt(name, args), f"prompt {name}", None)

    async def _guarded(self, work: Awaitable[Any], what: str, cancel: asyncio.Event | None) -> Any:
        """``work`` bounded by the call time-out, the server's exit and ``cancel``."""
        call = asyncio.ensure_future(work)
        waits = [call, asyncio.ensure_future(self._gone.wait())]
        if cancel is not None:
            waits.append(asyncio.ensure_future(cancel.wait()))
        try:
            await asyncio.wait(waits, timeout=self.call_timeout + 1.0,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                if not task.done():
                    task.cancel()
        if call.done() and not call.cancelled():
            try:
                return call.result()
            except Exception as exc:  # noqa: BLE001 - the SDK's errors become one line
                if self._gone.is_set():
                    raise ServerDown(self.crash_message(what)) from None
                raise ServerDown(f"MCP server {self.name}: {what}: {_brief(exc)}") from None
        if self._gone.is_set():
            raise ServerDown(self.crash_message(what))
        if cancel is not None and cancel.is_set():
            raise ServerDown(f"MCP server {self.name}: {what}: cancelled")
        raise ServerDown(f"MCP server {self.name}: {what} timed out after {self.call_timeout:g} s")

    def crash_message(self, what: str) -> str:
        code = self.output.exit_code
        how = f"exited with code {code}" if code is not None else "closed the connection"
        return (f"MCP server {self.name} {how} during {what}{self._why()}; "
                "it will be started again on next use")

    def _why(self) -> str:
        parts = []
        if self.output.stderr:
            parts.append(f"stderr: {self.output.stderr_tail()}")
        if self.output.garbage_lines:
            parts.append(f"{self.output.garbage_lines} line(s) on stdout were not JSON-RPC, e.g. "
                         f"{self.output.last_garbage[:80]!r}")
        return f" ({'; '.join(parts)})" if parts else ""


async def _pages(method: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    from mcp_types import PaginatedRequestParams

    items: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        result = await method(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        items += getattr(result, field)
        cursor = result.next_cursor
        if not cursor:
            break
    return items


async def _first(*waits: Awaitable[Any]) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _missing(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(_missing(e) for e in exc.exceptions)
    return isinstance(exc, FileNotFoundError | PermissionError)


def _brief(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_brief(e) for e in exc.exceptions[:3])
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]
