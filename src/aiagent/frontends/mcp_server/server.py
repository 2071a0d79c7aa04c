"""The tools ``aiagent mcp serve`` offers, on the SDK's ``MCPServer``.

Each call's arguments are checked here (types and sizes by the tools' schemas, paths by
:func:`.paths.inside`, the approval mode against the server's cap), then the call runs in
a worker process (:mod:`.worker`) started by the one process runner: its progress lines
become MCP progress notifications, and a cancelled call (``notifications/cancelled``, the
client gone) kills the worker's whole process tree before the cancellation goes on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from aiagent.agent.permissions.policy import MODES
from aiagent.frontends.mcp_server.paths import PathRefused, inside

log = logging.getLogger("aiagent.mcp.serve")

MAX_MESSAGE = 8 * 1024 * 1024  # bytes of one JSON-RPC line from the client
MAX_PROMPT = 200_000  # characters of a run_task prompt
MAX_LOG_TEXT = 4 * 1024 * 1024  # characters of analyze_log's text (larger logs: a path)
MAX_RESULT = 32 * 1024 * 1024  # bytes of one worker line (a tool's result)
Mode = Literal["read-only", "prompt", "auto-edit", "full-auto"]
Severity = Literal["info", "low", "medium", "high", "critical"]
Ref = Annotated[str, Field(max_length=256, pattern=r"^[^\s\x00-\x1f-][^\s\x00-\x1f]*$")]
PathArg = Annotated[str, Field(max_length=4096)]


@dataclass
class ServeOptions:
    root: Path
    flags: dict[str, Any] = field(default_factory=dict)  # the server's settings layer
    cap: str = "read-only"  # the widest approval mode a client may ask for
    parallel: int = 2  # calls running at once (more wait their turn)
    call_timeout: float = 3600.0  # seconds before a call's worker is killed


class ToolFailed(Exception):
    """A call refused or failed: the client gets ``isError`` with this one line."""


class Calls:
    """Runs calls in worker processes, at most ``parallel`` at once."""

    def __init__(self, options: ServeOptions) -> None:
        self.options = options
        self.slots = asyncio.Semaphore(max(1, options.parallel))

    async def run(self, tool: str, args: dict[str, Any], ctx: Any) -> dict[str, Any]:
        async with self.slots:
            return await _WorkerCall(self.options, tool, args, ctx).run()


class _WorkerCall:
    def __init__(self, options: ServeOptions, tool: str, args: dict[str, Any], ctx: Any) -> None:
        self.options, self.tool, self.args, self.ctx = options, tool, args, ctx
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.last = 0.0

    async def run(self) -> dict[str, Any]:
        import anyio

        from aiagent.agent.tools.mcp.transport import LineSplitter
        from aiagent.infra.process.runner import Limits

        splitter = LineSplitter(MAX_RESULT, self._line, self._oversize)
        running = await self._spawn(splitter)
        watcher = asyncio.ensure_future(running.supervise(Limits(timeout=self.options.call_timeout)))
        watcher.add_done_callback(lambda _: self.queue.put_nowait(None))
        try:
            reply = await self._replies()
            with anyio.CancelScope(shield=True):
                await _stop(running, watcher, grace=5.0)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await _stop(running, watcher, grace=0.0)
            raise
        return self._outcome(reply, watcher)

    async def _spawn(self, splitter: Any) -> Any:
        from aiagent.infra.process.capture import Capture
        from aiagent.infra.process.runner import new_tag, spawn
        from aiagent.infra.process.tree import TAG_VARIABLE

        def on_data(stream: str, data: bytes) -> None:
            if stream == "stdout":
                splitter.feed(data)
            else:
                sys.stderr.buffer.write(data)
                sys.stderr.flush()

        argv = [sys.executable, "-m", "aiagent.frontends.mcp_server.worker"]
        env = {**os.environ, TAG_VARIABLE: new_tag()}
        running = await spawn(argv, cwd=self.options.root, env=env, capture=Capture(None, 0, 0, 0),
                              stdin_pipe=True, on_data=on_data)
        request = {"tool": self.tool, "args": self.args, "root": str(self.options.root),
                   "flags": self.options.flags}
        assert running.stdin is not None
        running.stdin.write(json.dumps(request, default=str).encode())
        await running.stdin.drain()
        running.stdin.close()
        return running

    def _line(self, line: bytes) -> None:
        try:
            item = json.loads(line)
        except ValueError:
            log.warning("%s: the worker wrote a line that is not JSON", self.tool)
            return
        if isinstance(item, dict):
            self.queue.put_nowait(item)

    def _oversize(self, head: bytes, tail: bytes, size: int) -> None:
        del head, tail
        self.queue.put_nowait({"error": f"the result is {size} bytes, over the limit of "
                                        f"{MAX_RESULT} bytes; narrow the request"})

    async def _replies(self) -> dict[str, Any] | None:
        while True:
            item = await self.queue.get()
            if item is None or "result" in item or "error" in item:
                return item
            await self._progress(item)

    async def _progress(self, item: dict[str, Any]) -> None:
        value, total = item.get("progress"), item.get("total")
        value = float(value) if isinstance(value, (int, float)) else self.last
        value = value if value > self.last else self.last + 0.001  # progress only grows
        self.last = value
        total = float(total) if isinstance(total, (int, float)) and total >= value else None
        await self.ctx.report_progress(value, total, str(item.get("message") or "")[:500])

    def _outcome(self, reply: dict[str, Any] | None, watcher: asyncio.Future[Any]) -> dict[str, Any]:
        outcome = watcher.result() if watcher.done() and not watcher.cancelled() else None
        if outcome is not None and outcome.timed_out:  # whatever it managed to answer
            raise ToolFailed(f"{self.tool}: stopped after {self.options.call_timeout:g} s "
                             "(the server's --call-timeout)")
        if reply is not None and "result" in reply:
            return reply["result"]  # type: ignore[no-any-return]
        if reply is not None:
            raise ToolFailed(str(reply["error"]))
        code = outcome.exit_code if outcome is not None else None
        raise ToolFailed(f"{self.tool}: the worker ended without an answer (exit status {code})")


async def _stop(running: Any, watcher: asyncio.Future[Any], grace: float) -> None:
    """Wait ``grace`` s for the worker to end by itself, then kill its tree; wait for the
    watcher either way (no process of the call outlives it)."""
    if not watcher.done():
        await asyncio.wait([watcher], timeout=grace)
    if not watcher.done():
        await running.kill(0.5)
        await asyncio.wait([watcher], timeout=10.0)
    if not watcher.done():
        watcher.cancel()


# ---- the tools -------------------------------------------------------------------------

def clamp_mode(asked: str | None, cap: str) -> str:
    """The mode a run_task call runs in: ``asked`` (default: the cap); a mode wider than
    the server's cap is refused, never widened nor silently narrowed."""
    mode = asked or cap
    if MODES.index(mode) > MODES.index(cap):
        raise ToolFailed(f"approval_mode {mode!r} is wider than this server allows ({cap!r}: "
                         "its --approval-mode and the user's config); ask for "
                         f"{', '.join(MODES[:MODES.index(cap) + 1])}")
    return mode


def build(options: ServeOptions) -> MCPServer[Any]:
    """The ``MCPServer`` with the five tools."""
    from aiagent import __version__

    server = MCPServer("aiagent", version=__version__, log_level="WARNING",
                       instructions="aiagent's engines as tools: a headless agent run, the "
                                    "offline security audit, code review, log analysis and "
                                    "the wiki, on the folder this server was started in.")
    calls, root = Calls(options), options.root

    async def call(tool: str, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
        try:
            return await calls.run(tool, args, ctx)
        except (ToolFailed, PathRefused) as exc:
            raise ToolError(str(exc)) from None

    def where(raw: str | None, what: str, **kw: Any) -> str:
        try:
            return str(inside(root, raw or ".", what=what, **kw))
        except PathRefused as exc:
            raise ToolError(str(exc)) from None

    _register(server, options, call, where)
    return server


def _register(server: MCPServer[Any], options: ServeOptions,
              call: Callable[[str, dict[str, Any], Context], Awaitable[dict[str, Any]]],
              where: Callable[..., str]) -> None:
    @server.tool()
    async def run_task(prompt: Annotated[str, Field(min_length=1, max_length=MAX_PROMPT)],
                       ctx: Context,
                       max_turns: Annotated[int, Field(ge=1, le=200)] | None = None,
                       tools: Annotated[list[Annotated[str, Field(max_length=64)]],
                                        Field(max_length=64)] | None = None,
                       approval_mode: Mode | None = None) -> dict[str, Any]:
        """Run a task with aiagent's agent, headless, in the server's folder: the answer,
        turns, tool calls, usage and stop reason. approval_mode may narrow, never widen,
        the server's (default: the server's); tools narrows the tools offered (never adds one)."""
        try:
            mode = clamp_mode(approval_mode, options.cap)
        except ToolFailed as exc:
            raise ToolError(str(exc)) from None
        return await call("run_task", {"prompt": prompt, "max_turns": max_turns, "tools": tools,
                                       "approval_mode": mode}, ctx)

    _register_engines(server, call, where)


def _register_engines(server: MCPServer[Any],
                      call: Callable[[str, dict[str, Any], Context], Awaitable[dict[str, Any]]],
                      where: Callable[..., str]) -> None:
    @server.tool()
    async def security_audit(ctx: Context, path: PathArg = ".", min_severity: Severity = "info",
                             max_findings: Annotated[int, Field(ge=1, le=10_000)] = 500
                             ) -> dict[str, Any]:
        """Audit a file or folder for secrets, vulnerable code, risky config and vulnerable
        dependencies (offline, no model): the JSON report, findings at or above
        min_severity, at most max_findings of them."""
        return await call("security_audit", {"path": where(path, "path"),
                                             "min_severity": min_severity,
                                             "max_findings": max_findings}, ctx)

    @server.tool()
    async def review_diff(ctx: Context, base: Ref | None = None, range: Ref | None = None,
                          staged: bool = False, path: PathArg = ".",
                          static_only: bool = False) -> dict[str, Any]:
        """Review a git diff: the working tree (default), the staged changes, the changes
        since base's merge base, or a range such as main..HEAD. Needs a model unless
        static_only (then only the security rules run on the changed lines)."""
        if sum(map(bool, (base, range, staged))) > 1:
            raise ToolError("give at most one of base, range and staged")
        return await call("review_diff", {"base": base, "range": range, "staged": staged,
                                          "path": where(path, "path", kind="dir"),
                                          "static_only": static_only}, ctx)

    @server.tool()
    async def analyze_log(ctx: Context, text: Annotated[str, Field(max_length=MAX_LOG_TEXT)]
                          | None = None, path: PathArg | None = None) -> dict[str, Any]:
        """Analyse a log (no model needed): its templates, errors, bursts, timeline and
        severity. Give the log's text, or the path of a log file (gzip too) for large ones."""
        if bool(text) == bool(path):
            raise ToolError("give either text or path")
        args: dict[str, Any] = {"text": text}
        if path:
            args["path"] = where(path, "path", kind="file")
        return await call("analyze_log", args, ctx)

    @server.tool()
    async def build_wiki(ctx: Context, out_dir: PathArg = "docs/wiki",
                         format: Literal["markdown", "mkdocs", "hugo", "docusaurus"] = "markdown",
                         full: bool = False) -> dict[str, Any]:
        """Generate the static documentation wiki of the server's folder (no model) into
        out_dir, inside the folder: pages, modules and what changed."""
        return await call("build_wiki", {"out_dir": where(out_dir, "out_dir", must_exist=False,
                                                          kind="dir"),
                                         "format": format, "full": full}, ctx)
