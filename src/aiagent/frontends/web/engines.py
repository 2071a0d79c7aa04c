"""Conversations on another ACP agent (``[web.engines.NAME]``), shown like our own.

A hosted session is one of our stored sessions whose provider is ``acp`` and whose model
is the engine's name. Its first turn starts the engine's command (through the one process
runner, in its own process tree) in the project folder, with the server's environment
less credentials (plus ``env`` and the ``keep_env`` names), after placing the project's
skills where it finds them; then ``initialize`` and ``session/new``. Each turn is a
``session/prompt``: ``session/update`` notifications become AgentEvents,
``session/request_permission`` an approval request whose answer goes back as the chosen
option. Stop sends ``session/cancel`` (the engine is killed if it has not ended the turn
within :data:`CANCEL_GRACE` seconds). The engine is killed when the session is discarded
or the server stops. We store the user's prompts and the engine's final text of each turn.

The engine's own session id is stored with our session (``engine_sessions``). When the
engine starts again for a session it had before (after a crash, a Stop, a server
restart) and it advertised ``loadSession``, ``session/load`` continues that conversation;
what it replays is dropped (the page has the history), at most :data:`MAX_REPLAY`
updates within ``startup_timeout``. Otherwise (it cannot load, refuses, replays without
end, the stored id is unusable or another engine's) a new engine session starts and the
turn begins with a one-line ``notice`` saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.contracts.events import (
    AgentEvent,
    ApprovalRequestEvent,
    DoneEvent,
    ErrorEvent,
    UsageEvent,
)
from aiagent.contracts.messages import Message, TextBlock, Usage
from aiagent.frontends.web.acp_events import UpdateMapper, permission_options, permission_outcome
from aiagent.frontends.web.engine_skills import place_skills
from aiagent.infra.process.environment import without_secrets
from aiagent.infra.process.jsonrpc import PeerDied, PeerTimeout, RpcError, spawn_peer

if TYPE_CHECKING:
    from aiagent.infra.process.jsonrpc import RpcPeer
    from aiagent.infra.store.sessions import SessionStore

OWN = "aiagent"
PROVIDER = "acp"  # the stored session's provider; its model names the engine
PROTOCOL_VERSION = 1
CANCEL_GRACE = 10.0
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_REMOTE_ID = 256  # characters of an engine's session id we keep and send back
MAX_REPLAY = 10_000  # session/update notifications a session/load may replay


class EngineError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class EngineNotice:
    """One line for the page about the hosted engine (wire type ``notice``)."""

    message: str
    kind: str = "notice"


HostedEvent = AgentEvent | EngineNotice


def remote_id(value: Any) -> str | None:
    """An engine's session id we accept: 1 to :data:`MAX_REMOTE_ID` printable characters."""
    if isinstance(value, str) and 0 < len(value) <= MAX_REMOTE_ID and value.isprintable():
        return value
    return None


@dataclass(frozen=True, slots=True)
class EngineSpec:
    name: str
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    keep_env: tuple[str, ...] = ()
    skills_engine: str = ""
    skills_dir: str = ""
    startup_timeout: float = 60.0


def engines_of(settings: Any) -> dict[str, EngineSpec]:
    """The configured engines (``aiagent`` is our own and cannot be redefined)."""
    table = settings.web.engines
    found: dict[str, EngineSpec] = {}
    for name, entry in sorted(table.items()):
        if name == OWN or not NAME.match(name) or not entry.get("command"):
            continue
        found[name] = EngineSpec(
            name, str(entry["command"]), tuple(entry.get("args") or ()),
            dict(entry.get("env") or {}), tuple(entry.get("keep_env") or ()),
            str(entry.get("skills_engine") or ""), str(entry.get("skills_dir") or ""),
            float(entry.get("startup_timeout") or 60.0))
    return found


def engine_of(provider: str, model: str) -> str:
    """The engine of a stored session."""
    return model if provider == PROVIDER and model else OWN


def engine_env(spec: EngineSpec, env: dict[str, str]) -> dict[str, str]:

    return {**without_secrets(env, spec.keep_env), **spec.env}


@dataclass
class HostedStarted:
    """What the hub keeps of a live session (like :class:`aiagent.app.Started`)."""

    agent: HostedAgent
    hosted: bool = True

    def close(self) -> None:
        self.agent.kill_soon()

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self.agent.aclose()
        self.close()


class HostedAgent:
    def __init__(self, spec: EngineSpec, settings: Any, store: SessionStore, session_id: str) -> None:
        self.spec, self.settings, self.store, self.session_id = spec, settings, store, session_id
        self.workspace = Path(settings.workspace)
        self.peer: RpcPeer | None = None
        self.remote_id = ""
        self.total = Usage()
        self.cancelled = False
        self._queue: asyncio.Queue[AgentEvent] | None = None
        self._mapper = UpdateMapper()
        self._watchdog: asyncio.TimerHandle | None = None
        self._turn: tuple[int, ...] = ()
        self._prompt: asyncio.Future[Any] | None = None
        self.notes: list[str] = []  # for the page, at the start of the turn
        self._replayed: int | None = None  # updates replayed by a session/load under way
        self._overflow: asyncio.Future[None] | None = None
        self._generation = 0  # of the engine process: messages from an earlier one are dropped

    # ---- a turn ----------------------------------------------------------------------

    async def run(self, text: str) -> AsyncIterator[HostedEvent]:
        self.cancelled, self._mapper = False, UpdateMapper()
        queue = self._queue = asyncio.Queue()
        self._turn = self.store.append_next(self.session_id, Message.user(text), model=self.spec.name)
        try:
            if self.peer is None or self.peer.closed:
                await self._open()
        except Exception as exc:  # noqa: BLE001 - a broken engine is told, the server stays up
            await self.aclose()
            for note in self._take_notes():
                yield note
            yield ErrorEvent(f"engine {self.spec.name}: {exc}", 3)
            yield DoneEvent("error", "", 0, Usage(), 3)
            return
        for note in self._take_notes():
            yield note
        assert self.peer is not None
        prompt = self._prompt = asyncio.ensure_future(self.peer.request(
            "session/prompt", {"sessionId": self.remote_id, "prompt": [{"type": "text", "text": text}]},
            None))
        async for event in _until(queue, prompt):
            yield event
        for event in self._finish(prompt):
            yield event

    def _take_notes(self) -> list[EngineNotice]:
        notes, self.notes = self.notes, []
        return [EngineNotice(f"engine {self.spec.name}: {n}") for n in notes]

    def _finish(self, prompt: asyncio.Future[Any]) -> list[AgentEvent]:

        self._cancel_watchdog()
        answer = self._mapper.text
        if answer:
            self._turn = self.store.append_next(self.session_id, Message("assistant", [TextBlock(answer)]),
                                                turn=self._turn, model=self.spec.name)
        error = prompt.exception() if not prompt.cancelled() else PeerDied("the engine was stopped")
        if error is not None:
            self.kill_soon()
            if self.cancelled:
                return [DoneEvent("interrupted", answer, 1, self.total, 130)]
            return [ErrorEvent(f"engine {self.spec.name}: {error}", 5),
                    DoneEvent("error", answer, 1, self.total, 5)]
        result = prompt.result() if isinstance(prompt.result(), dict) else {}
        events: list[AgentEvent] = []
        usage = _usage(result.get("usage"))
        if usage is not None:
            self.total = self.total + usage
            events.append(UsageEvent(usage, self.total))
        reason = result.get("stopReason")
        if self.cancelled or reason == "cancelled":
            return [*events, DoneEvent("interrupted", answer, 1, self.total, 130)]
        stop = "max_turns" if reason == "max_turn_requests" else "completed"
        return [*events, DoneEvent(stop, answer, 1, self.total, 0)]

    # ---- the engine's process --------------------------------------------------------

    async def _open(self) -> None:
        """Start the engine; continue its stored session if it can, else open a new one."""
        can_load = await self._start()
        link = self.store.engine_session(self.session_id)
        if link is not None and await self._resume(link, can_load):
            return
        if self.peer is None or self.peer.closed:  # killed by a failed load
            await self._start()
        assert self.peer is not None
        async with self._talking():
            opened = await self.peer.request("session/new", {"cwd": str(self.workspace),
                                                             "mcpServers": []},
                                             self.spec.startup_timeout)
        session_id = remote_id(opened.get("sessionId") if isinstance(opened, dict) else None)
        if session_id is None:
            raise EngineError("session/new answered without a usable sessionId (a string of 1 to "
                              f"{MAX_REMOTE_ID} printable characters)")
        self.remote_id = session_id
        self.store.set_engine_session(self.session_id, self.spec.name, session_id)

    async def _start(self) -> bool:
        """Spawn the engine and ``initialize``; True if it can load sessions."""

        note = await asyncio.to_thread(place_skills, self.spec, self.settings)
        sys.stderr.write(f"aiagent serve: {note}\n")
        env = engine_env(self.spec, dict(self.settings.env or os.environ))
        self.remote_id = ""
        self._generation += 1
        generation = self._generation

        async def handle(method: str, params: dict[str, Any]) -> Any:
            if generation != self._generation:  # a process we gave up on (a runaway replay)
                raise ValueError("this engine process is no longer used")
            return await self._handle(method, params)

        try:
            self.peer = await spawn_peer([self.spec.command, *self.spec.args], cwd=str(self.workspace),
                                         env=env, handler=handle)
        except OSError as exc:
            raise EngineError(f"cannot start {self.spec.command!r}: {exc}") from None
        async with self._talking():
            hello = await self.peer.request("initialize", {
                "protocolVersion": PROTOCOL_VERSION,
                "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                       "terminal": False},
                "clientInfo": {"name": "aiagent-serve", "version": "1"}}, self.spec.startup_timeout)
        capabilities = hello.get("agentCapabilities") if isinstance(hello, dict) else None
        return isinstance(capabilities, dict) and capabilities.get("loadSession") is True

    @contextlib.asynccontextmanager
    async def _talking(self) -> AsyncIterator[None]:
        """An engine that died or did not answer, as an :class:`EngineError`."""

        try:
            yield
        except PeerDied:
            if self.peer is None:
                raise EngineError("the engine was stopped") from None
            await self.peer.running.wait_exit(2.0)  # for the exit status and stderr's last line
            await self.peer.running.wait_readers(1.0)
            raise EngineError(self.peer.death_note()) from None
        except PeerTimeout:
            raise EngineError(f"no answer within {self.spec.startup_timeout:g}s "
                              "(is it an ACP agent? see startup_timeout)") from None

    async def _resume(self, link: tuple[str, str], can_load: bool) -> bool:
        """``session/load`` of the stored engine session; False (with a note) if not done."""

        engine, stored = link
        fresh = "a new engine session starts; it does not see the earlier turns (they stay shown here)"
        if engine != self.spec.name:
            self.notes.append(f"the stored engine session belongs to engine {engine[:64]!r}, not "
                              f"loaded: {fresh}")
            return False
        if remote_id(stored) is None:
            self.notes.append(f"the stored engine session id is unusable: {fresh}")
            return False
        if not can_load:
            self.notes.append(f"this engine cannot load sessions (no loadSession): {fresh}")
            return False
        try:
            await self._load(stored)
        except (RpcError, PeerDied, PeerTimeout, EngineError) as exc:
            self.remote_id = ""
            if not isinstance(exc, RpcError) and self.peer is not None:
                await self.peer.kill()  # a runaway replay or a silent engine: start afresh
            reason = str(exc) or type(exc).__name__
            self.notes.append(f"could not load its session ({reason[:200]}): {fresh}")
            return False
        return True

    async def _load(self, stored: str) -> None:
        """``session/load``; the replayed updates are counted and dropped."""

        assert self.peer is not None
        self.remote_id, self._replayed = stored, 0
        overflow = self._overflow = asyncio.get_running_loop().create_future()
        load = asyncio.ensure_future(self.peer.request(
            "session/load", {"sessionId": stored, "cwd": str(self.workspace), "mcpServers": []},
            self.spec.startup_timeout))
        try:
            await asyncio.wait({load, overflow}, return_when=asyncio.FIRST_COMPLETED)
            if not load.done():
                raise EngineError(f"it replayed more than {MAX_REPLAY} updates")
            load.result()
            for _ in range(3):  # notifications read before the answer are still being handled
                await asyncio.sleep(0)
        except RpcError:
            raise  # the engine said no: the same process opens a new session
        except BaseException:
            self._generation += 1  # a runaway or dead process: what it still sends is dropped
            raise
        finally:
            self._overflow, self._replayed = None, None
            if not load.done():
                load.cancel()
                with contextlib.suppress(BaseException):
                    await load

    async def _handle(self, method: str, params: dict[str, Any]) -> Any:
        if params.get("sessionId") not in (None, self.remote_id):
            raise ValueError("unknown sessionId")
        if self._replayed is not None:  # session/load: the page already has this history
            return self._replay(method)
        queue = self._queue
        if method == "session/update":
            for event in self._mapper.events(params.get("update")):
                if queue is not None:
                    queue.put_nowait(event)
            return None
        if method == "session/request_permission":
            return await self._permission(params)

        raise RpcError(f"method not found: {method}", -32601)

    def _replay(self, method: str) -> Any:
        if method != "session/update":
            return permission_outcome("") if method == "session/request_permission" else None
        self._replayed = (self._replayed or 0) + 1
        if self._replayed > MAX_REPLAY and self._overflow is not None and not self._overflow.done():
            self._overflow.set_result(None)
        return None

    async def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        options = permission_options(params.get("options"))
        call = params.get("toolCall") if isinstance(params.get("toolCall"), dict) else {}
        assert isinstance(call, dict)
        raw = call.get("rawInput")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        call_id = str(call.get("toolCallId") or f"perm-{id(future)}")
        event = ApprovalRequestEvent(
            call_id, str(call.get("kind") or "tool"),
            str(call.get("title") or "the engine asks to run a tool"),
            raw if isinstance(raw, dict) else {}, tuple(options), future)
        if self.cancelled or self._queue is None:
            return permission_outcome("")
        for diff in self._mapper.diffs(call_id, call.get("content")):  # what an edit would do
            self._queue.put_nowait(diff)
        self._queue.put_nowait(event)
        answer = await future
        return permission_outcome("" if self.cancelled else options.get(answer, ""))

    # ---- stopping --------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop: ``session/cancel``; the engine is killed if the turn does not end soon."""
        self.cancelled = True
        if self.peer is None or self.peer.closed:
            return
        self.peer.notify("session/cancel", {"sessionId": self.remote_id})
        if self._watchdog is None:
            self._watchdog = asyncio.get_running_loop().call_later(CANCEL_GRACE, self.kill_soon)

    def _cancel_watchdog(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def kill_soon(self) -> None:
        task = asyncio.ensure_future(self.aclose())
        _KEEP.add(task)
        task.add_done_callback(_KEEP.discard)

    async def aclose(self) -> None:
        """Kill the engine (its process tree); a prompt still waiting ends with it."""
        self._cancel_watchdog()
        peer, self.peer = self.peer, None
        if peer is not None:
            await peer.close(grace=1.0)
        if self._prompt is not None and not self._prompt.done():
            self._prompt.cancel()


_KEEP: set[asyncio.Task[Any]] = set()


async def _until(queue: asyncio.Queue[AgentEvent], prompt: asyncio.Future[Any]) -> AsyncIterator[AgentEvent]:
    """The queued events until ``prompt`` is answered, then the ones left."""
    while not prompt.done():
        get = asyncio.ensure_future(queue.get())
        await asyncio.wait({get, prompt}, return_when=asyncio.FIRST_COMPLETED)
        if get.done():
            yield get.result()
        else:
            get.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await get
    for _ in range(3):  # notifications read before the answer are still being handled
        await asyncio.sleep(0)
    while not queue.empty():
        yield queue.get_nowait()


def _usage(data: Any) -> Usage | None:
    if not isinstance(data, dict):
        return None
    def count(key: str) -> int:
        value = data.get(key)
        return value if isinstance(value, int) and value >= 0 else 0
    return Usage(count("inputTokens"), count("outputTokens"), count("cachedReadTokens"),
                 count("cachedWriteTokens"))


def hosted(spec: EngineSpec, settings: Any, store: SessionStore, session_id: str) -> HostedStarted:
    return HostedStarted(HostedAgent(spec, settings, store, session_id))
