"""``exec_command`` and ``write_stdin``: long-lived command sessions (Codex unified exec).

``exec_command`` starts a command (through a PTY with ``tty: true``, else plain pipes with
stdin closed) and waits up to ``yield_time_ms`` for output. If the command is still running
the answer says ``Process running with session ID N`` and ``write_stdin`` can send it input
or poll it; once it exits the answer says ``Process exited with code N`` and the session is
gone. At most ``max_sessions`` live sessions are kept; beyond that the least recently used
one is killed (the eight most recent are never chosen, exited ones go first).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from aiagent.agent.tools.shell.env import command_env
from aiagent.agent.tools.shell.runtime import runtime
from aiagent.agent.tools.shell.tools import APPROVAL_PROPS, sandboxed, shell_argv, with_snapshot
from aiagent.agent.tools.shell.truncate import approx_token_count, formatted_truncate
from aiagent.agent.tools.tooldef import BuiltinTool, boolean, int_arg, number, schema, string
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import ToolContext, ToolEffect, ToolError
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, Running, new_tag, spawn

MIN_YIELD_MS = 250
MAX_YIELD_MS = 30_000
MIN_EMPTY_YIELD_MS = 5_000
MAX_EMPTY_YIELD_MS = 300_000
DEFAULT_EXEC_YIELD_MS = 10_000
DEFAULT_WRITE_YIELD_MS = 250
DEFAULT_MAX_OUTPUT_TOKENS = 10_000
SESSION_BUFFER_BYTES = 1024 * 1024
PROTECTED_RECENT = 8
STDIN_CLOSED = "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"


@dataclass
class Session:
    id: int
    running: Running
    tty: bool
    read_pos: int = 0
    last_used: float = field(default_factory=time.monotonic)


class SessionManager:
    def __init__(self, max_sessions: int = 64) -> None:
        self.max_sessions = max(1, max_sessions)
        self.sessions: dict[int, Session] = {}

    def new_id(self) -> int:
        while True:
            candidate = random.randint(1_000, 99_999)
            if candidate not in self.sessions:
                return candidate

    async def add(self, session: Session) -> None:
        self.sessions[session.id] = session
        if len(self.sessions) > self.max_sessions:
            await self._prune()

    async def _prune(self) -> None:
        by_age = sorted(self.sessions.values(), key=lambda s: s.last_used)
        candidates = by_age[: max(0, len(by_age) - PROTECTED_RECENT)]
        victim = next((s for s in candidates if s.running.done), candidates[0] if candidates else None)
        if victim is not None:
            await self.drop(victim.id)

    def get(self, session_id: int) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise ToolError(f"write_stdin failed: Unknown process id {session_id}")
        session.last_used = time.monotonic()
        return session

    async def drop(self, session_id: int) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            if not session.running.done:
                await session.running.kill(0.5)
            await session.running.finish(Limits(drain=0.1, kill_grace=0.5))

    async def close_all(self) -> None:
        for session_id in list(self.sessions):
            await self.drop(session_id)


def _clamp_yield(value: int, empty_poll: bool) -> int:
    if empty_poll:
        return max(MIN_EMPTY_YIELD_MS, min(value, MAX_EMPTY_YIELD_MS))
    return max(MIN_YIELD_MS, min(value, MAX_YIELD_MS))


async def collect(session: Session, yield_ms: int) -> tuple[bytes, bool]:
    """Wait until ``yield_ms`` passed or the process exited; return the new output."""
    running = session.running
    deadline = time.monotonic() + yield_ms / 1000
    while time.monotonic() < deadline and not running.done:
        await asyncio.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
    if running.done:
        await running.wait_readers(0.2)
    data, session.read_pos, _lost = running.capture.read_since(session.read_pos, SESSION_BUFFER_BYTES)
    return data, running.done


def format_response(started: float, output: str, max_tokens: int, exit_code: int | None, session_id: int | None) -> str:
    sections = [f"Chunk ID: {secrets.token_hex(3)}", f"Wall time: {time.monotonic() - started:.4f} seconds"]
    if exit_code is not None:
        sections.append(f"Process exited with code {exit_code}")
    if session_id is not None:
        sections.append(f"Process running with session ID {session_id}")
    sections.append(f"Original token count: {approx_token_count(output)}")
    sections += ["Output:", formatted_truncate(output, max_tokens)]
    return "\n".join(sections)


async def respond(mgr: SessionManager, session: Session, started: float, yield_ms: int, tokens: int) -> str:
    data, done = await collect(session, yield_ms)
    text = data.decode("utf-8", "replace")
    if done:
        code = session.running.exit_status()
        await mgr.drop(session.id)
        return format_response(started, text, tokens, code, None)
    return format_response(started, text, tokens, None, session.id)


_YIELD = number("How long to wait (in milliseconds) for output before yielding.")
_TOKENS = number("Maximum number of tokens to return. Excess output will be truncated.")


class ExecCommandTool(BuiltinTool):
    name = "exec_command"
    description = "Runs a command in a PTY, returning output or a session ID for ongoing interaction."
    input_schema = schema(
        {
            "cmd": string("Shell command to execute."),
            "workdir": string("Optional working directory to run the command in; defaults to the turn cwd."),
            "shell": string("Shell binary to launch. Defaults to the user's default shell."),
            "login": boolean("Whether to run the shell with -l/-i semantics. Defaults to true."),
            "tty": boolean(
                "Whether to allocate a TTY for the command. Defaults to false (plain pipes); set "
                "to true to open a PTY and access TTY process."
            ),
            "yield_time_ms": _YIELD,
            "max_output_tokens": _TOKENS,
            **APPROVAL_PROPS,
        },
        ["cmd"],
    )
    effect = ToolEffect.of("execute", command_args=("cmd",))

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        started = time.monotonic()
        rt = runtime(ctx)
        settings = rt.settings
        if args.get("shell"):
            settings = dataclasses.replace(settings, shell=str(args["shell"]))
        argv, base = await with_snapshot(ctx, rt, shell_argv(settings, args["cmd"], args.get("login")))
        argv = sandboxed(argv, ctx)
        cwd = resolve_path(ctx, args.get("workdir") or ".", field="workdir")
        tty = bool(args.get("tty", False))
        capture = Capture(rt.new_log("exec"), 0, SESSION_BUFFER_BYTES, settings.log_max_bytes)
        env = command_env(new_tag(), settings.env, tty=tty, cwd=cwd, keep=settings.keep_env, base=base)
        try:
            running = await spawn(argv, cwd=cwd, env=env, capture=capture, tty=tty, grace=settings.kill_grace)
        except OSError as err:
            raise ToolError(f"exec_command failed: {err.strerror or err}") from None
        mgr = rt.sessions
        session = Session(mgr.new_id(), running, tty)
        await mgr.add(session)
        yield_ms = _clamp_yield(int_arg(args, "yield_time_ms", DEFAULT_EXEC_YIELD_MS), False)
        tokens = int_arg(args, "max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)
        return await respond(mgr, session, started, yield_ms, tokens)


class WriteStdinTool(BuiltinTool):
    name = "write_stdin"
    description = "Writes characters to an existing unified exec session and returns recent output."
    input_schema = schema(
        {
            "session_id": number("Identifier of the running unified exec session."),
            "chars": string("Bytes to write to stdin (may be empty to poll)."),
            "yield_time_ms": _YIELD,
            "max_output_tokens": _TOKENS,
        },
        ["session_id"],
    )
    effect = ToolEffect.of("execute", approved_by="the command that started the session")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        started = time.monotonic()
        mgr = runtime(ctx).sessions
        session = mgr.get(int_arg(args, "session_id", 0))
        chars = args.get("chars") or ""
        if chars:
            if not session.tty:
                raise ToolError(f"write_stdin failed: {STDIN_CLOSED}")
            try:
                session.running.write(chars.encode())
            except OSError as err:
                raise ToolError(f"write_stdin failed: {err.strerror or err}") from None
        yield_ms = _clamp_yield(int_arg(args, "yield_time_ms", DEFAULT_WRITE_YIELD_MS), not chars)
        tokens = int_arg(args, "max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)
        return await respond(mgr, session, started, yield_ms, tokens)
