"""Helpers: the real ``aiagent acp`` subprocess against FakeLLM, driven by the ``acp``
package's client side (``spawn_agent_process``), with a recording client."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, schema, spawn_agent_process

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


Answer = Callable[[schema.RequestPermissionRequest], Any]


@dataclass
class Recorder:
    """The test's ACP client: records updates, answers permissions with ``answer``
    (an option id, None to cancel, or "never" to leave the request unanswered)."""

    answer: str | None = "once"
    files: dict[str, str] = field(default_factory=dict)  # path -> buffer text served
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[Any] = field(default_factory=list)
    file_reads: list[str] = field(default_factory=list)
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

    async def write_text_file(self, **_: Any) -> None:
        raise NotImplementedError

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

    async def initialize(self, *, fs: bool = False) -> Any:
        caps = schema.ClientCapabilities(
            fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=False))
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
        project = root / "proj"
        project.mkdir(exist_ok=True)
    client = client or Recorder()
    env = isolated_env(root / "home", fake)
    with (root / "acp.log").open("ab") as log:
        async with spawn_agent_process(
                client, AIAGENT, "acp", "--provider", "anthropic", env=env, cwd=project,
                transport_kwargs={"stderr": log.fileno(), "shutdown_timeout": 10}) as (conn, proc):
            yield Peer(conn, proc, client, project)
