"""The ACP agent: each ACP session is one of our stored sessions with an agent built by
:class:`aiagent.app.Application` (settings of the session's ``cwd``), driven by prompts
and answered through the AgentEvent stream.

A prompt streams ``session/update`` notifications in the order of the events; an
approval becomes a ``session/request_permission`` asked in its own task, so a cancel
(``session/cancel``) ends the turn whether or not the client ever answers. Cancelling
stops the agent's worker, which kills the commands it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError, schema

from aiagent import __version__
from aiagent.agent.core.images import ImageInputError, check_count, decode_image, vision_refusal
from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.contracts.events import ApprovalRequestEvent, DoneEvent, ErrorEvent, ToolResultEvent
from aiagent.contracts.messages import ImageBlock
from aiagent.contracts.providers import AuthError
from aiagent.frontends.acp import listing, modes, permissions
from aiagent.frontends.acp.files import ClientFiles
from aiagent.frontends.acp.replay import replay
from aiagent.frontends.acp.terminal import (
    ClientTerminals,
    TerminalEvent,
    terminal_choice,
    wrap_shell_tools,
)
from aiagent.frontends.acp.updates import TurnView, stop_reason, text_chunk, usage_total
from aiagent.infra.config.flags import flags_layer
from aiagent.infra.config.settings import ConfigError, Settings

if TYPE_CHECKING:
    from aiagent.app import Application, Started

log = logging.getLogger("aiagent.acp")


@dataclass(frozen=True, slots=True)
class AcpOptions:
    provider: str | None = None
    model: str | None = None
    trust: bool = False  # `aiagent --trust acp`: every session's folder, for this process


@dataclass
class Live:
    app: Application
    started: Started
    files: ClientFiles | None = None
    terminals: ClientTerminals | None = None
    running: bool = False
    asks: set[asyncio.Task[None]] = field(default_factory=set)


class AcpServer:
    """Implements the ``acp.Agent`` protocol; ``conn`` is the client side to call back."""

    def __init__(self, options: AcpOptions) -> None:
        self.options = options
        self.conn: Any = None
        self.client_reads_files = False
        self.client_writes_files = False
        self.client_terminal = False
        self.sessions: dict[str, Live] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # ---- set-up ----------------------------------------------------------------------

    async def initialize(self, protocol_version: int, client_capabilities: Any = None,
                         client_info: Any = None, **_: Any) -> schema.InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.client_reads_files = bool(getattr(fs, "read_text_file", False))
        self.client_writes_files = bool(getattr(fs, "write_text_file", False))
        self.client_terminal = bool(getattr(client_capabilities, "terminal", False))
        return schema.InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(
                    image=True, audio=False, embedded_context=True),
                mcp_capabilities=schema.McpCapabilities(http=True, sse=True),
                session_capabilities=schema.SessionCapabilities(list=schema.SessionListCapabilities()),
            ),
            agent_info=schema.Implementation(name="aiagent", title="aiagent", version=__version__),
        )

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None,
                          **_: Any) -> schema.NewSessionResponse:

        live = self._open(cwd, mcp_servers, SessionRequest())
        return schema.NewSessionResponse(session_id=live.started.session.info.id,
                                          modes=modes.state(live.started.policy))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **_: Any) -> schema.LoadSessionResponse:

        live = self.sessions.get(session_id)
        if live is None:
            if not session_id.isalnum():
                raise RequestError.invalid_params({"sessionId": f"no session {session_id!r}"})
            live = self._open(cwd, mcp_servers, SessionRequest(resume=session_id))
            if live.started.session.info.id != session_id:  # the store takes prefixes too
                await self._discard(live.started.session.info.id)
                raise RequestError.invalid_params({"sessionId": f"no session {session_id!r}"})
        agent = live.started.agent
        for update in replay(list(agent.conversation.messages), agent.tools):
            await self.conn.session_update(session_id=session_id, update=update)
        return schema.LoadSessionResponse(modes=modes.state(live.started.policy))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **_: Any) -> schema.ListSessionsResponse:
        return await asyncio.to_thread(listing.page, cwd, cursor)

    async def set_session_mode(self, mode_id: str, session_id: str,
                               **_: Any) -> schema.SetSessionModeResponse:
        live = self._live(session_id)
        update = modes.switch(live.started.policy, mode_id)
        await self.conn.session_update(session_id=session_id, update=update)
        return schema.SetSessionModeResponse()

    def _open(self, cwd: str, mcp_servers: list[Any] | None, request: Any) -> Live:

        settings = self._settings(cwd, mcp_servers)
        app = Application(settings, interactive=True)
        with contextlib.suppress(AuthError):  # said again, with the fix, by start below
            if note := app.resolve().note:
                log.info("aiagent: %s", note)
        try:
            started = app.start(request)
        except ConfigError as exc:  # an unknown session id, a bad config, no API key
            raise RequestError.invalid_params({"details": str(exc)}) from None
        except Exception as exc:  # noqa: BLE001 - told to the client, the server stays up
            raise RequestError.internal_error({"details": str(exc)}) from None
        live = Live(app, started)
        session_id = started.session.info.id
        if self.client_reads_files or self.client_writes_files:
            live.files = ClientFiles(self.conn, session_id, reads=self.client_reads_files,
                                     writes=self.client_writes_files)
            started.agent.use_files(live.files)
        choice = terminal_choice(settings)
        if self.client_terminal and choice != "agent":
            live.terminals = ClientTerminals(self.conn, session_id)
            wrap_shell_tools(started.agent, live.terminals, choice)
        self.sessions[session_id] = live
        return live

    def _settings(self, cwd: str, mcp_servers: list[Any] | None) -> Any:

        folder = Path(cwd)
        if not folder.is_absolute() or not folder.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd}: not an absolute path to a folder"})
        flags = flags_layer({"provider": self.options.provider, "model": self.options.model,
                             "trust": self.options.trust})
        servers = mcp_table(mcp_servers or [])
        if servers:
            flags["mcp"] = {"servers": servers}
        try:
            settings = Settings.load(folder, flags)
        except ConfigError as exc:
            raise RequestError.invalid_params({"details": str(exc)}) from None
        return settings

    # ---- prompts ---------------------------------------------------------------------

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> schema.PromptResponse:
        live = self._live(session_id)
        if live.running:
            raise RequestError.invalid_request(
                {"details": "a prompt is already running in this session; cancel it first"})
        images = prompt_images(prompt, live.started.agent)
        listing.name_session(live.started.session, prompt_text(prompt))
        live.running = True
        try:
            return await self._turn(live, session_id, prompt_text(prompt), images)
        finally:
            live.running = False
            for task in list(live.asks):
                task.cancel()

    async def _turn(self, live: Live, session_id: str, text: str,
                    images: list[ImageBlock]) -> schema.PromptResponse:
        agent = live.started.agent
        window = int(getattr(live.started.session.context, "budget", 0) or 0)
        view = TurnView(agent.workspace, agent.tools, window)
        error, done = "", None
        shown: dict[str, Any] = {}  # call id -> the terminal content of a call in the editor
        async for event in agent.run(text, images):
            if isinstance(event, TerminalEvent):
                shown[event.id] = terminal_content(event.terminal_id)
                await self.conn.session_update(session_id=session_id, update=schema.ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=event.id, status="in_progress",
                    content=[shown[event.id]]))
                continue
            if isinstance(event, ApprovalRequestEvent):
                self._ask(live, session_id, event, view)
            elif isinstance(event, ErrorEvent):
                error = event.message
            elif isinstance(event, DoneEvent):
                done = event
                break
            for update in view.updates(event):
                if isinstance(event, ToolResultEvent) and event.id in shown:
                    update.content = [shown[event.id]]  # the terminal stays in the call
                await self.conn.session_update(session_id=session_id, update=update)
        if done is None or done.stop_reason == "error":
            raise RequestError(-32603, error or "the run ended without an answer")
        if done.stop_reason == "timeout":
            await self.conn.session_update(session_id=session_id, update=_note(
                "\n\n(stopped: the run's time limit was reached)"))
        return schema.PromptResponse(stop_reason=stop_reason(done.stop_reason, view.last_stop),  # type: ignore[arg-type]
                                     usage=usage_total(done.usage))

    def _ask(self, live: Live, session_id: str, event: ApprovalRequestEvent, view: TurnView) -> None:
        task = asyncio.ensure_future(self._permission(session_id, event, view))
        live.asks.add(task)
        task.add_done_callback(live.asks.discard)

    async def _permission(self, session_id: str, event: ApprovalRequestEvent, view: TurnView) -> None:
        answer: Any = "deny"
        try:
            call_id = view.asked_about(event)
            call = view.call(call_id) if call_id else None
            tool_call = schema.ToolCallUpdate(
                tool_call_id=call_id or event.id, title=call.title if call else event.what,
                kind=call.kind if call else "other", status="pending",  # type: ignore[arg-type]
                raw_input=event.args,
                locations=[schema.ToolCallLocation(path=str(p)) for p in call.paths] if call else None)
            response = await self.conn.request_permission(
                session_id=session_id, tool_call=tool_call, options=permissions.options(event))
            answer = permissions.answer_of(response, event)
        except Exception as exc:  # noqa: BLE001 - a client that fails denies
            log.warning("acp: permission request failed (%s); denied", exc)
        finally:  # also when cancelled: the agent is never left waiting
            event.answer(answer)

    async def cancel(self, session_id: str, **_: Any) -> None:
        live = self.sessions.get(session_id)
        if live is None:
            log.warning("acp: session/cancel for unknown session %r", session_id)
            return
        for task in list(live.asks):
            task.cancel()
        live.started.agent.cancel()

    def _live(self, session_id: str) -> Live:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params(
                {"sessionId": f"no open session {session_id!r}; use session/new or session/load"})
        return live

    # ---- shutdown --------------------------------------------------------------------

    async def _discard(self, session_id: str) -> None:
        live = self.sessions.pop(session_id, None)
        if live is None:
            return
        live.started.agent.cancel()
        await live.started.aclose()

    async def close(self) -> None:
        for session_id in list(self.sessions):
            await self._discard(session_id)


def terminal_content(terminal_id: str) -> Any:
    return schema.TerminalToolCallContent(type="terminal", terminal_id=terminal_id)


def _note(text: str) -> Any:

    return text_chunk(text)


def prompt_text(blocks: list[Any]) -> str:
    """The prompt's content as the user message: text as is, a linked file as a mention,
    an embedded resource's text inside a ``<context>`` block."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"@{_local(block.uri)}")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                parts.append(f'<context uri="{resource.uri}">\n{text}\n</context>')
        elif kind != "image":  # images: see prompt_images
            log.info("acp: a %s block in the prompt is not supported; left out", kind)
    return "\n".join(parts)


def prompt_images(blocks: list[Any], agent: Any) -> list[ImageBlock]:
    """The prompt's ``image`` blocks (base64 ``data``), checked as every attachment is; a
    bad one, or images for a model without vision, is an invalid-params error and nothing
    is sent."""
    images: list[ImageBlock] = []
    try:
        for n, block in enumerate(b for b in blocks if getattr(b, "type", "") == "image"):
            name = Path(_local(block.uri)).name if getattr(block, "uri", None) else f"image {n + 1}"
            images.append(decode_image(str(block.data or ""), name))
        check_count(images)
    except ImageInputError as exc:
        raise RequestError.invalid_params({"details": str(exc)}) from None
    refused = vision_refusal(agent.provider, agent.config.model) if images else ""
    if refused:
        raise RequestError.invalid_params({"details": refused})
    return images


def _local(uri: str) -> str:
    return uri[len("file://"):] if uri.startswith("file://") else uri


def mcp_table(servers: list[Any]) -> dict[str, dict[str, Any]]:
    """The client's MCP servers as ``[mcp.servers.NAME]`` tables (stdio, http, sse)."""
    table: dict[str, dict[str, Any]] = {}
    for server in servers:
        kind = getattr(server, "type", "stdio") or "stdio"
        name = str(getattr(server, "name", "") or "").strip()
        if not name:
            continue
        if kind in ("http", "sse"):
            table[name] = {"type": kind, "url": server.url,
                           "headers": {h.name: h.value for h in server.headers or []}}
        elif getattr(server, "command", None):
            table[name] = {"command": server.command, "args": list(server.args or []),
                           "env": {e.name: e.value for e in server.env or []}}
        else:
            log.info("acp: MCP server %r of type %r is not supported; ignored", name, kind)
    return table
