"""Helpers: the real ``aiagent acp`` subprocess against FakeLLM, driven by the ``acp``
package's client side (``spawn_agent_process``), with a recording client."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, schema, spawn_agent_process

from aiagent.testing import FakeLLM

AIAGENT = str(Path(sys.executable).with_name("aiagent"))


def isolated_env(home: Path, fake: FakeLLM | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "OPENAI_", "OLLAMA_", "AIAGENT_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"), XDG_CACHE_HOME=str(home / ".cache"),
               NO_COLOR="1")
    if fake is not None:
        env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-test-123456")
    (home / ".config").mkdir(parents=True, exist_ok=True)
    return env


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie is gone for our purpose)."""
    try:
        os.kill(pid, 0)
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except (ProcessLookupError, OSError):
        return False


def survivors(pids: list[int], timeout: float = 10) -> list[int]:
    """Those of ``pids`` still alive after waiting up to ``timeout`` seconds for all to end."""
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def project_dir(root: Path, files: dict[str, str] | None = None) -> Path:
    """``root/proj`` (made if missing) holding ``files`` (name -> text)."""
    project = root / "proj"
    project.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {}).items():
        (project / name).write_text(text)
    return project


Answer = Callable[[schema.RequestPermissionRequest], Any]


@dataclass
class Term:
    """A command the test client runs for ``terminal/create``; output kept to ``limit``
    bytes (the tail, as the protocol says), or all of it."""

    proc: asyncio.subprocess.Process
    limit: int | None
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Future[None] | None = None

    async def pump(self) -> None:
        assert self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(65536):
            self.output += chunk
            if self.limit is not None and len(self.output) > self.limit:
                del self.output[:len(self.output) - self.limit]
                self.truncated = True

    def text(self) -> str:
        return self.output.decode("utf-8", "replace")

    def status(self) -> schema.TerminalExitStatus | None:
        code = self.proc.returncode
        if code is None:
            return None
        if code < 0:
            return schema.TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return schema.TerminalExitStatus(exit_code=code)

    def kill(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)


@dataclass
class Recorder:
    """The test's ACP client: records updates, answers permissions with ``answer``
    (an option id, None to cancel, or "never" to leave the request unanswered)."""

    answer: str | None = "once"
    files: dict[str, str] = field(default_factory=dict)  # path -> buffer text served
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    file_reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    write_error: str | None = None  # fs/write_text_file fails for paths containing this
    # "run"; "create_error" (terminal/create fails); "never_exit" (wait_for_exit never
    # answers); "ignore_limit" (the output is never cut)
    terminal_mode: str = "run"
    terminal_calls: list[tuple[str, ...]] = field(default_factory=list)
    terminals: dict[str, Term] = field(default_factory=dict)
    pids: list[int] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any,
                                 **_: Any) -> schema.RequestPermissionResponse:
        self.permissions.append(tool_call)
        self.changed.set()
        if self.answer == "never":
            await asyncio.Event().wait()
        if self.answer is None:
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.answer))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        self.changed.set()

    async def read_text_file(self, path: str, session_id: str, **_: Any) -> schema.ReadTextFileResponse:
        self.file_reads.append(path)
        if path in self.files:
            return schema.ReadTextFileResponse(content=self.files[path])
        return schema.ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, path: str, content: str, session_id: str,
                              **_: Any) -> schema.WriteTextFileResponse:
        self.writes.append((path, content))
        self.changed.set()
        if self.write_error is not None and self.write_error in path:
            raise RequestError.internal_error({"details": "the buffer is read-only"})
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(content)  # an editor saves its buffer
        if path in self.files:
            self.files[path] = content  # …which now holds the text
        return schema.WriteTextFileResponse()

    # ---- terminal/*: the command runs in a process of this client ----------------------

    async def create_terminal(self, command: str, session_id: str, args: list[str] | None = None,
                              env: list[Any] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None,
                              **_: Any) -> schema.CreateTerminalResponse:
        self._note(("create", command, *(args or [])))
        self.changed.set()
        if self.terminal_mode == "create_error":
            raise RequestError.internal_error({"details": "no terminal here"})
        extra = {e.name: e.value for e in env or []}
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, env={**os.environ, **extra},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True)
        limit = None if self.terminal_mode == "ignore_limit" else output_byte_limit
        term = Term(proc, limit)
        term.reader = asyncio.ensure_future(term.pump())
        terminal_id = f"term-{len(self.calls('create'))}"
        self.terminals[terminal_id] = term
        self.pids.append(proc.pid)
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str,
                              **_: Any) -> schema.TerminalOutputResponse:
        self._note(("output", terminal_id))
        term = self.terminals[terminal_id]
        return schema.TerminalOutputResponse(output=term.text(), truncated=term.truncated,
                                             exit_status=term.status())

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **_: Any) -> schema.WaitForTerminalExitResponse:
        self._note(("wait", terminal_id))
        if self.terminal_mode == "never_exit":
            await asyncio.Event().wait()
        term = self.terminals[terminal_id]
        await term.proc.wait()
        if term.reader is not None:
            await term.reader
        status = term.status()
        return schema.WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **_: Any) -> schema.KillTerminalResponse:
        self._note(("kill", terminal_id))
        self.changed.set()
        self.terminals[terminal_id].kill()
        return schema.KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **_: Any) -> schema.ReleaseTerminalResponse:
        self._note(("release", terminal_id))
        self.changed.set()
        term = self.terminals.pop(terminal_id)
        term.kill()
        return schema.ReleaseTerminalResponse()

    def _note(self, call: tuple[str, ...]) -> None:
        self.terminal_calls.append(call)
        self.changed.set()

    def calls(self, method: str) -> list[tuple[str, ...]]:
        return [c for c in self.terminal_calls if c[0] == method]

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]

    def text(self) -> str:
        return "".join(u.content.text for _, u in self.updates
                       if u.session_update == "agent_message_chunk")

    async def wait_for(self, check: Callable[[], bool], timeout: float = 30) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                self.changed.clear()
                await self.changed.wait()


@dataclass
class Peer:
    conn: Any
    process: asyncio.subprocess.Process
    client: Recorder
    project: Path

    async def initialize(self, *, fs: bool = False, write: bool = False,
                         terminal: bool = False) -> Any:
        caps = schema.ClientCapabilities(
            fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=write),
            terminal=terminal)
        return await self.conn.initialize(protocol_version=PROTOCOL_VERSION,
                                          client_capabilities=caps)

    async def new_session(self) -> str:
        response = await self.conn.new_session(cwd=str(self.project), mcp_servers=[])
        return str(response.session_id)

    async def prompt(self, session_id: str, text: str) -> Any:
        return await self.conn.prompt(session_id=session_id,
                                      prompt=[schema.TextContentBlock(type="text", text=text)])


@asynccontextmanager
async def acp_peer(root: Path, fake: FakeLLM, client: Recorder | None = None,
                   *, project: Path | None = None) -> AsyncIterator[Peer]:
    """``aiagent acp`` in ``root/proj`` (HOME in ``root/home``); stderr in ``root/acp.log``."""
    if project is None:
        project = project_dir(root)
    client = client or Recorder()
    env = isolated_env(root / "home", fake)
    with (root / "acp.log").open("ab") as log:
        async with spawn_agent_process(
                client, AIAGENT, "acp", "--provider", "anthropic", env=env, cwd=project,
                transport_kwargs={"stderr": log.fileno(), "shutdown_timeout": 10}) as (conn, proc):
            yield Peer(conn, proc, client, project)
