"""Shell commands in the editor's terminal (the client's ``terminal/*`` methods).

When the client offers ``terminal`` and ``[acp] terminal`` allows it, the ``shell`` and
``shell_command`` tools are wrapped: the approval policy has decided before the tool runs
(exactly as without an editor); the wrapper then either hands the call to our own tool
(our runner, our sandbox) or runs the command in a terminal of the editor, so the user
sees it there. Where a command runs:

- ``agent``: always our runner (and sandbox, when one applies).
- ``editor``: the editor's terminal whenever the client offers one. The editor's terminal
  is not our sandbox: a command that would have been sandboxed (full-auto, a saved rule)
  runs unconfined, which is why an untrusted project cannot choose this (config/trust.toml).
- ``auto`` (default): the editor's terminal only when our sandbox would not confine the
  command anyway (:func:`would_confine`: ``[sandbox]`` is off for this mode and the call
  was approved by a person, or no sandbox works on this machine); otherwise our runner.

Background jobs (``&``, ``run_in_background``) always run in our runner: they outlive the
call and are managed by the job tools.

The model gets the same result contract as from our runner (exit code, wall time, output
capped as ``[tools.shell]`` caps it, Codex or minimal format). Our time limit applies:
on timeout or cancel the terminal is killed and released. Every client call has its own
time limit, so a client that never answers cannot hold the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import schema

from aiagent.agent.tools.shell.env import command_env
from aiagent.agent.tools.shell.runtime import runtime
from aiagent.agent.tools.shell.tools import (
    CommandRun,
    format_freeform,
    format_json,
    format_minimal,
    shell_argv,
    split_background,
)
from aiagent.agent.tools.tooldef import BuiltinTool, int_arg
from aiagent.contracts.tools import Tool, ToolContext, ToolError, ToolResult
from aiagent.infra.process.runner import Outcome, new_tag
from aiagent.infra.sandbox import detect

if TYPE_CHECKING:
    from aiagent.infra.config.settings import Settings

log = logging.getLogger("aiagent.acp")
CHOICES = ("auto", "editor", "agent")
WRAPPED = ("shell", "shell_command")
CALL_TIMEOUT = 10.0  # create, output, kill, release: a client has this long to answer


@dataclass(frozen=True, slots=True)
class TerminalEvent:
    """A command of tool call ``id`` runs in the editor's terminal ``terminal_id`` (sent
    through the agent's event stream so it follows the call's start)."""

    id: str
    terminal_id: str


def terminal_choice(settings: Settings) -> str:
    value = settings.acp.terminal
    return value if value in CHOICES else "auto"


def would_confine(ctx: ToolContext) -> bool:
    """True when our runner would run this call in a sandbox: ``[sandbox]`` is on for this
    mode (full-auto, ``always``: the builder only turns it on where one works), or the call
    runs without a person approving it and a sandbox works here (see
    :func:`aiagent.agent.tools.shell.tools.sandboxed`)."""

    config = ctx.settings.get("sandbox") or {}
    if config.get("enabled"):
        return True
    if ctx.sandbox_required:
        return detect(str(config.get("backend") or "auto")).available
    return False


def cap(text: str, limit: int) -> tuple[str, bool]:
    """At most ``limit`` bytes of ``text``: its head and tail, as our runner keeps them;
    and whether it was whole."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, True
    half = max(1, limit // 2)
    head = data[:half].decode("utf-8", "ignore")
    tail = data[-half:].decode("utf-8", "ignore")
    return f"{head}\n[… {len(data) - 2 * half} bytes not kept …]\n{tail}", False


class ClientTerminals:
    """The client's terminal methods for one session, each bounded by ``timeout``."""

    def __init__(self, conn: Any, session_id: str, *, timeout: float = CALL_TIMEOUT) -> None:
        self.conn, self.session_id, self.timeout = conn, session_id, timeout
        self.broken = ""  # why terminal/create failed: later commands use our runner
        self.cleanups: set[asyncio.Task[None]] = set()

    async def create(self, argv: list[str], cwd: Path, env: dict[str, str], limit: int) -> str:
        try:
            response = await asyncio.wait_for(self.conn.create_terminal(
                session_id=self.session_id, command=argv[0], args=argv[1:], cwd=str(cwd),
                env=[schema.EnvVariable(name=k, value=v) for k, v in env.items()],
                output_byte_limit=limit), self.timeout)
            terminal_id = response.terminal_id
            if not isinstance(terminal_id, str) or not terminal_id:
                raise ValueError("no terminalId in the answer")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the client's failure: the call fails
            self.broken = _why(exc)
            raise ToolError(f"not run: the editor could not start the command ({self.broken}); "
                            "the next commands run in the agent's own runner") from None
        return str(terminal_id)

    async def wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        response = await self.conn.wait_for_terminal_exit(
            session_id=self.session_id, terminal_id=terminal_id)
        return response.exit_code, response.signal

    async def output(self, terminal_id: str) -> tuple[str, bool]:
        """What the terminal printed and whether the client cut it ("" when it fails)."""
        try:
            response = await asyncio.wait_for(self.conn.terminal_output(
                session_id=self.session_id, terminal_id=terminal_id), self.timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            log.warning("acp: terminal/output %s failed (%s)", terminal_id, _why(exc))
            return f"[the editor did not give the output: {_why(exc)}]", False
        text = response.output if isinstance(response.output, str) else ""
        return text, bool(response.truncated)

    async def _call(self, method: str, terminal_id: str) -> None:
        try:
            await asyncio.wait_for(getattr(self.conn, method)(
                session_id=self.session_id, terminal_id=terminal_id), self.timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - logged; our side goes on
            log.warning("acp: %s %s failed (%s)", method, terminal_id, _why(exc))

    async def kill(self, terminal_id: str) -> None:
        await self._call("kill_terminal", terminal_id)

    async def release(self, terminal_id: str) -> None:
        await self._call("release_terminal", terminal_id)

    def clean_up_later(self, terminal_id: str) -> None:
        """Kill and release in a task of its own (the caller is being cancelled)."""
        async def clean() -> None:
            await self.kill(terminal_id)
            await self.release(terminal_id)

        task = asyncio.ensure_future(clean())
        self.cleanups.add(task)
        task.add_done_callback(self.cleanups.discard)


def _why(exc: BaseException) -> str:
    data = getattr(exc, "data", None)  # a JSON-RPC error's details
    text = " ".join(f"{exc}{f': {data}' if data else ''}".split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"


class EditorShell(BuiltinTool):
    """``inner`` (a shell tool) with its calls run in the editor's terminal when chosen."""

    def __init__(self, inner: Tool, terminals: ClientTerminals, choice: str) -> None:
        self.inner, self.terminals, self.choice = inner, terminals, choice
        self.name, self.description = inner.name, inner.description
        self.input_schema, self.effect = inner.input_schema, inner.effect
        self.runs_in_editor = 0

    def in_editor(self, args: dict[str, Any], ctx: ToolContext) -> bool:

        if self.choice == "agent" or self.terminals.broken:
            return False
        if args.get("run_in_background"):
            return False
        command = args.get("command")
        script = command if isinstance(command, str) else (
            command[2] if isinstance(command, list) and len(command) == 3 else "")
        if script and split_background(str(script))[1]:
            return False
        return self.choice == "editor" or not would_confine(ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not self.in_editor(args, ctx):
            return await self.inner.run(args, ctx)
        return await super().run(args, ctx)

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:

        settings = runtime(ctx).settings
        argv = self._argv(args, settings)
        cwd = _workdir(ctx, args)
        env = command_env(new_tag(), settings.env, base={}, cwd=cwd)
        started = time.monotonic()
        terminal_id = await self.terminals.create(argv, cwd, env, settings.memory_bytes)
        self.runs_in_editor += 1
        ctx.emit(TerminalEvent(ctx.call_id, terminal_id))  # type: ignore[arg-type]
        return await self._finish(ctx, terminal_id, _timeout(args, settings.timeout), started)

    def _argv(self, args: dict[str, Any], settings: Any) -> list[str]:

        command = args.get("command")
        if isinstance(command, list):
            argv = [str(a) for a in command]
            if not argv:
                raise ToolError("command must not be empty")
            return argv
        script = str(command or "")
        if not script.strip():
            raise ToolError("command must not be empty")
        return shell_argv(settings, script, args.get("login"))

    async def _finish(self, ctx: ToolContext, terminal_id: str, timeout: float | None,
                      started: float) -> ToolResult:

        try:
            exit_code, reason = await self._wait(ctx, terminal_id, timeout)
            if reason:
                await self.terminals.kill(terminal_id)
            output, cut = await self.terminals.output(terminal_id)
        except asyncio.CancelledError:
            self.terminals.clean_up_later(terminal_id)
            raise
        await self.terminals.release(terminal_id)
        outcome = Outcome(exit_code, time.monotonic() - started, timed_out=reason == "timeout",
                          reason=reason)
        return self._result(ctx, outcome, output, cut)

    async def _wait(self, ctx: ToolContext, terminal_id: str,
                    timeout: float | None) -> tuple[int | None, str | None]:
        """(exit code, None) when the command ended; (None, "timeout"|"canceled") else."""
        waiter = asyncio.ensure_future(self.terminals.wait(terminal_id))
        cancel = asyncio.ensure_future(ctx.cancel.wait())
        try:
            done, _ = await asyncio.wait({waiter, cancel}, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            cancel.cancel()
            if not waiter.done():
                waiter.cancel()
        if waiter in done and not waiter.cancelled():
            failure = waiter.exception()
            if failure is None:
                code, signal = waiter.result()
                return (code if isinstance(code, int) else _signal_code(signal)), None
            await self.terminals.kill(terminal_id)
            await self.terminals.release(terminal_id)
            raise ToolError(f"the editor's terminal failed: {_why(failure)}")
        return None, "canceled" if ctx.cancel.is_set() else "timeout"

    def _result(self, ctx: ToolContext, outcome: Any, output: str, cut: bool) -> ToolResult:

        rt = runtime(ctx)
        kept, whole = cap(output, rt.settings.memory_bytes)
        log_path = rt.new_log("cmd")
        with contextlib.suppress(OSError):
            log_path.write_text(output[-rt.settings.log_max_bytes:], "utf-8", errors="replace")
        run = CommandRun(outcome, kept, whole and not cut, log_path)
        meta = {"exit_code": outcome.exit_code, "timed_out": outcome.timed_out,
                "canceled": outcome.canceled, "reason": outcome.reason,
                "log_path": str(log_path), "terminal": "editor"}
        if rt.settings.result == "minimal":
            return ToolResult(format_minimal(run), metadata=meta)
        fmt = format_freeform if getattr(self.inner, "freeform", False) else format_json
        return ToolResult(fmt(run, rt.settings.max_output_tokens), metadata=meta)


def _signal_code(signal: str | None) -> int | None:
    """A signal's death as the shell reports it (128 + number); None when unknown."""
    import signal as signals

    if not signal:
        return None
    name = signal if signal.startswith("SIG") else f"SIG{signal}"
    number = getattr(signals, name, None)
    return 128 + int(number) if number is not None else None


def _workdir(ctx: ToolContext, args: dict[str, Any]) -> Path:
    from aiagent.agent.tools.workspace import resolve_path

    raw = args.get("workdir")
    path = resolve_path(ctx, raw or ".", field="workdir")
    if not path.is_dir():
        raise ToolError(f"workdir {raw} is not a directory")
    return path


def _timeout(args: dict[str, Any], default: float) -> float | None:
    if args.get("timeout_ms") is None:
        return default or None
    value = int_arg(args, "timeout_ms", 0)
    if value <= 0:
        raise ToolError("timeout_ms must be greater than zero")
    return value / 1000


def wrap_shell_tools(agent: Any, terminals: ClientTerminals, choice: str) -> list[EditorShell]:
    """Replace the agent's shell tools by :class:`EditorShell` wrappers (same name, schema
    and effect: the approval policy sees the same tool)."""
    wrapped = []
    for name in WRAPPED:
        inner = agent.tools.get(name)
        if inner is None or isinstance(inner, EditorShell):
            continue
        tool = EditorShell(inner, terminals, choice)
        agent.add_tool(tool, offer=False)
        wrapped.append(tool)
    return wrapped
