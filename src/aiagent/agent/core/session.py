"""Open a stored session for an agent run: history, recorder, context window, saved
approvals. :mod:`aiagent.app` opens it (every front-end starts there) and the agent takes
it with :meth:`~aiagent.agent.core.loop.Agent.use_session`, so all front-ends save, resume and
compact alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.compaction import Plan
from aiagent.agent.core.context import ContextSettings, ContextWindow
from aiagent.agent.core.conversation import Conversation
from aiagent.agent.core.redact import SecretMasker
from aiagent.agent.core.tokens import budget_for
from aiagent.infra.config.settings import ConfigError, Settings
from aiagent.infra.store.approvals import ApprovalStore
from aiagent.infra.store.db import StoreError
from aiagent.infra.store.sessions import (
    SessionNotFound,
    SessionRecorder,
    SessionStore,
    repair_tail,
    title_of,
)

if TYPE_CHECKING:
    from aiagent.infra.store.approvals import ApprovalStore
    from aiagent.infra.store.sessions import SessionInfo, SessionRecorder, SessionStore


@dataclass(frozen=True, slots=True)
class SessionRequest:
    """Which session to use: a new one (default), the latest in this folder, or one by id."""

    continue_latest: bool = False
    resume: str | None = None
    save: bool = True


@dataclass(slots=True)
class AgentSession:
    store: SessionStore
    approvals: ApprovalStore
    info: SessionInfo
    conversation: Conversation
    recorder: SessionRecorder
    context: ContextWindow
    resumed: bool = False
    notes: list[str] = field(default_factory=list)  # things to tell the user

    def attach(self, agent: Any) -> None:
        """Record each assistant message with the usage reported since the previous one
        (called by :meth:`~aiagent.agent.core.loop.Agent.use_session`)."""
        self.recorder.usage_total = lambda: agent.usage

    def close(self, *, discard_if_empty: bool = False) -> None:
        """Close the database; a new session that got no message is deleted."""
        if discard_if_empty and not self.resumed and not len(self.conversation):
            self.store.delete(self.info.id)
        self.store.close()


class SessionError(ConfigError):
    """Cannot open or find the session (exit code 2)."""


def open_session(settings: Settings, request: SessionRequest, *, provider: str, model: str,
                 title: str = "") -> AgentSession:
    """A new stored session for ``provider``/``model`` (as :func:`aiagent.app.resolve` chose
    them), the latest in this folder, or one by id."""

    try:
        store = SessionStore.open(settings.env)
    except StoreError as exc:
        raise SessionError(str(exc)) from None
    try:
        info, resumed = _choose(store, settings, request, title, provider, model)
    except SessionNotFound as exc:
        store.close()
        raise SessionError(str(exc)) from None
    return _assemble(store, ApprovalStore(store.conn), info, settings, resumed, model)


def _choose(store: SessionStore, settings: Settings, request: SessionRequest, title: str,
            provider: str, model: str) -> tuple[SessionInfo, bool]:

    workspace = str(settings.workspace)
    if request.resume:
        return store.get(request.resume), True
    if request.continue_latest:
        latest = store.latest(workspace)
        if latest is None:
            raise SessionNotFound(f"no earlier session in {workspace} to continue")
        return latest, True
    info = store.create(workspace, provider=provider, model=model,
                        title=title_of(title))
    return info, False


def _assemble(store: SessionStore, approvals: ApprovalStore, info: SessionInfo,
              settings: Settings, resumed: bool, model: str) -> AgentSession:

    history = store.messages(info.id)
    recorder = SessionRecorder(store, info.id, len(history), model=model)
    conversation = Conversation(history, on_append=recorder)
    notes = []
    fix = repair_tail(history)
    if fix is not None:
        conversation.append(fix)
        notes.append("the previous run stopped in the middle of a tool call; its result was "
                      "marked as not run")
    context = make_context(settings, store, info, model)
    return AgentSession(store, approvals, info, conversation, recorder, context, resumed, notes)


def make_context(settings: Settings, store: SessionStore, info: SessionInfo,
                 model: str) -> ContextWindow:
    section = settings.context
    raw = {name: getattr(section, name) for name in ContextSettings.__dataclass_fields__
           if hasattr(section, name)}
    windows = {str(k): int(v) for k, v in section.windows.items()}
    budget = budget_for(model, settings.agent.context_budget, windows)
    saved = store.latest_compaction(info.id)
    return ContextWindow(
        budget,
        settings=ContextSettings.from_mapping(raw),
        folder=store.folder(info.id, create=False),
        plan=Plan.from_dict(saved) if saved else None,
        on_plan=lambda plan: store.save_compaction(info.id, plan),
        mask=SecretMasker.from_env(settings.env),
    )
