"""The server's sessions: the stored ones (listed, renamed, deleted through the same
SQLite store as the TUI and ``--continue``) and the live ones, each an agent built by
:class:`aiagent.app.Application` with at most one turn running.

Everything here runs on the server's event loop thread (SQLite connections stay in the
thread that opened them).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.session import SessionRequest
from aiagent.agent.tools.plan import last_plan
from aiagent.contracts.events import ApprovalRequestEvent, DoneEvent, UsageEvent
from aiagent.frontends.web.engines import OWN, PROVIDER, engine_of, engines_of, hosted
from aiagent.frontends.web.turnlog import TurnLog
from aiagent.frontends.web.wire import message_data, plan_data, to_wire
from aiagent.infra.config.pricing import run_cost
from aiagent.infra.store.sessions import SessionNotFound

if TYPE_CHECKING:
    from aiagent.app import Application, Started
    from aiagent.contracts.messages import ImageBlock
    from aiagent.frontends.web.engines import HostedStarted
    from aiagent.infra.store.sessions import SessionInfo, SessionStore


class HubError(Exception):
    """A request the hub refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Live:
    started: Started | HostedStarted | None = None  # built by the session's first turn
    turn: TurnLog | None = None
    task: asyncio.Task[None] | None = None
    approvals: dict[str, ApprovalRequestEvent] = field(default_factory=dict)
    stopped: bool = False

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


def usage_cost(model: str, total: Any, elsewhere: Any = ()) -> float | None:
    """Dollars so far when the model's price is known (the TUI's price table), else None;
    ``elsewhere``: (model, usage) of each task child, priced at its own model."""

    try:
        return run_cost(model, total, elsewhere)
    except Exception:  # noqa: BLE001 - a price is a nicety
        return None


def info_data(info: SessionInfo) -> dict[str, Any]:
    return {"id": info.id, "title": info.title, "workspace": info.workspace,
            "updated_at": info.updated_at, "created_at": info.created_at,
            "message_count": info.message_count, "model": info.model,
            "engine": engine_of(info.provider, info.model)}


class Hub:
    def __init__(self, app: Application, store: SessionStore, log_limit: int) -> None:
        self.app, self.store, self.log_limit = app, store, log_limit
        self.workspace = str(app.settings.workspace)
        self.live: dict[str, Live] = {}
        self._finished: dict[str, TurnLog] = {}  # the last turn of a session no longer live

    # ---- stored sessions ------------------------------------------------------------

    def info(self, session_id: str) -> SessionInfo:

        if not session_id.isalnum():
            raise HubError(404, f"no session {session_id!r}")
        try:
            info = self.store.get(session_id)
        except SessionNotFound:
            raise HubError(404, f"no session {session_id!r}") from None
        if info.id != session_id:  # the store also accepts prefixes; the API wants ids
            raise HubError(404, f"no session {session_id!r}")
        return info

    def list(self) -> list[dict[str, Any]]:
        rows = [info_data(i) for i in self.store.list(self.workspace, limit=200)]
        for row in rows:
            live = self.live.get(row["id"])
            row["running"] = bool(live and live.running)
        return rows

    def create(self, title: str, engine: str = OWN) -> dict[str, Any]:
        settings = self.app.settings
        chosen = self.app.choice_or_named()
        provider, model = chosen.name, chosen.model
        if engine != OWN:
            if engine not in engines_of(settings):
                raise HubError(400, f"no engine {engine!r} (configure [web.engines.{engine}] in "
                                    "your own config.toml)")
            provider, model = PROVIDER, engine
        info = self.store.create(self.workspace, provider=provider, model=model, title=title)
        return info_data(info)

    def open(self, session_id: str) -> dict[str, Any]:
        info = self.info(session_id)
        data = info_data(info)
        stored = self.store.messages(info.id)
        data["messages"] = [message_data(m) for m in stored]
        plan = last_plan(stored)
        data["plan"] = plan_data(plan) if plan is not None else None
        live = self.live.get(info.id)
        data["turn"] = ({"id": live.turn.id, "running": live.running}
                        if live is not None and live.turn is not None else None)
        return data

    def rename(self, session_id: str, title: str) -> dict[str, Any]:
        info = self.info(session_id)
        self.store.set_title(info.id, title)
        return info_data(self.store.get(info.id))

    async def delete(self, session_id: str) -> None:
        info = self.info(session_id)
        await self.discard(info.id)
        self.store.delete(info.id)

    # ---- turns ------------------------------------------------------------------------

    def send(self, session_id: str, text: str, images: Sequence[ImageBlock] = ()) -> TurnLog:
        """Start a turn; its log (the ``turn-start`` event already in it) is returned at
        once, the agent is built (first turn) and run in a task."""
        info = self.info(session_id)
        live = self.live.get(info.id)
        if live is not None and live.running:
            raise HubError(409, "a turn is already running in this session; stop it first")
        if live is None:
            live = self.live[info.id] = Live()
            self._finished.pop(info.id, None)
        if not info.title and text.strip():
            from aiagent.infra.store.sessions import title_of

            self.store.set_title(info.id, title_of(text))
        live.turn, live.stopped = TurnLog(self.log_limit), False
        live.turn.add("turn-start", {"turn": live.turn.id, "session": info.id})
        live.task = asyncio.ensure_future(self._run(info.id, live, live.turn, text, images))
        return live.turn

    async def _run(self, session_id: str, live: Live, log: TurnLog, text: str,
                   images: Sequence[ImageBlock] = ()) -> None:
        # let the page get ``turn-start`` before the (blocking) first set-up of the agent
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(log.delivered.wait(), 0.05)
        try:
            agent = self._agent(session_id, live)
        except Exception as exc:  # noqa: BLE001 - no provider key, bad config: told, not raised
            log.add("error", {"message": str(exc), "exit_code": getattr(exc, "exit_code", 2)})
            log.add("done", {"stop_reason": "error", "turns": 0, "usage": {}, "exit_code": 2})
            log.finish()
            self.live.pop(session_id, None)
            return
        if live.stopped:  # stopped before the agent was ready
            log.add("done", {"stop_reason": "interrupted", "turns": 0, "usage": {}, "exit_code": 130})
            log.finish()
            return
        try:
            if images and getattr(live.started, "hosted", False):
                raise HubError(400, "this engine does not take images")
            async for event in (agent.run(text, images) if images else agent.run(text)):
                if isinstance(event, ApprovalRequestEvent):
                    live.approvals[event.id] = event
                kind, data = to_wire(event, self.app.settings.workspace)
                if isinstance(event, UsageEvent):
                    data["cost"] = None if getattr(live.started, "hosted", False) else \
                        usage_cost(agent.config.model, event.total,
                                   getattr(agent, "usage_elsewhere", ()))
                log.add(kind, data)
                if isinstance(event, DoneEvent):
                    break
        except Exception as exc:  # noqa: BLE001 - the page is told; the server stays up
            told = isinstance(exc, HubError)  # this turn cannot run: said as is, exit 2
            log.add("error", {"message": str(exc) if told else f"internal error: {exc}",
                              "exit_code": 2 if told else 5})
            log.add("done", {"stop_reason": "error", "turns": 0, "usage": {}, "exit_code": 2 if told else 5})
        finally:
            live.approvals.clear()
            log.finish()
        if live.stopped:  # the next turn reopens the session; the store repairs its tail
            await self.discard(session_id, keep_turn=True)

    def _agent(self, session_id: str, live: Live) -> Any:

        if live.started is None:
            info = self.store.get(session_id)
            engine = engine_of(info.provider, info.model)
            if engine != OWN:
                spec = engines_of(self.app.settings).get(engine)
                if spec is None:
                    raise HubError(400, f"engine {engine!r} is no longer configured")
                live.started = hosted(spec, self.app.settings, self.store, session_id)
            else:
                live.started = self.app.start(SessionRequest(resume=session_id))
        return live.started.agent

    def turn(self, session_id: str, turn_id: str | None) -> TurnLog:
        """The session's current (or last) turn, for a reconnecting page."""
        self.info(session_id)
        live = self.live.get(session_id)
        log = live.turn if live is not None else None
        if log is None:
            log = self._finished.get(session_id)
        if log is None or (turn_id is not None and turn_id != log.id):
            raise HubError(404, "no such turn in this session")
        return log

    def answer(self, session_id: str, approval_id: str, answer: str) -> None:
        self.info(session_id)
        live = self.live.get(session_id)
        event = live.approvals.get(approval_id) if live is not None else None
        if live is None or event is None:
            raise HubError(404, f"no pending approval {approval_id!r}")
        if answer not in event.options:
            raise HubError(400, f"answer must be one of: {', '.join(event.options)}")
        del live.approvals[approval_id]
        event.answer(answer)  # the policy saves "always" itself
        if live.turn is not None:
            live.turn.add("approval-answer", {"id": approval_id, "answer": answer})

    def stop(self, session_id: str) -> bool:
        """Cancel the running turn (its commands are killed); False when none runs."""
        self.info(session_id)
        live = self.live.get(session_id)
        if live is None or not live.running:
            return False
        live.stopped = True
        for event in list(live.approvals.values()):
            event.answer("deny")
        if live.started is not None:
            live.started.agent.cancel()
        return True

    async def discard(self, session_id: str, *, keep_turn: bool = False) -> None:
        live = self.live.pop(session_id, None)
        if live is None:
            return
        if live.running and live.task is not None and live.task is not asyncio.current_task():
            if getattr(live.started, "hosted", False):  # another engine: killed, not asked
                await live.started.agent.aclose()  # type: ignore[union-attr]
            elif live.started is not None:
                live.started.agent.cancel()
            else:
                live.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await live.task
        if keep_turn and live.turn is not None:
            self._finished[session_id] = live.turn
        if live.started is not None:
            await live.started.aclose()

    async def close(self) -> None:
        for session_id in list(self.live):
            await self.discard(session_id)
        self.store.close()
