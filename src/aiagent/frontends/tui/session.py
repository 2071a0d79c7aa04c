"""The interactive session's link to the stored session (:mod:`aiagent.agent.core.session`).

The UI can switch sessions while it runs (``/clear``, ``/resume``, ``/rewind``): each
switch opens the new :class:`~aiagent.agent.core.session.AgentSession`, closes the old one
(deleting it when it got no message) and points the agent and the policy at the new one.
A new session takes its first prompt as its title.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiagent.agent.core.session import SessionRequest
from aiagent.contracts.messages import Message

if TYPE_CHECKING:
    from aiagent.agent.core.session import AgentSession, SessionRequest
    from aiagent.app import Application
    from aiagent.infra.store.sessions import SessionInfo


class SessionLink:
    def __init__(self, app: Application) -> None:
        self.app = app
        self.settings = app.settings
        self.current: AgentSession | None = None
        self.error: str | None = None

    @property
    def id(self) -> str:
        return self.current.info.id if self.current else ""

    @property
    def info(self) -> SessionInfo | None:
        return self.current.info if self.current else None

    def open(self, request: SessionRequest) -> AgentSession:
        opened = self.app.session(request)
        if self.current is not None:
            self.current.close(discard_if_empty=True)
        self.current = opened
        opened.conversation.subscribe(self._on_message)
        return opened

    def attach(self, agent: Any, policy: Any) -> None:
        """Point the agent and the policy at the current session."""
        current = self.current
        if current is None:
            return
        agent.use_session(current)
        if hasattr(policy, "session_id"):
            policy.session_id = current.info.id
            policy.store = current.approvals

    def fork_at(self, messages: list[Message]) -> None:
        """Continue in a new session holding ``messages`` (a prefix of the current one)."""

        current = self.current
        if current is None:
            return
        store, parent = current.store, current.info
        title = f"{parent.title} (rewound)" if parent.title else ""
        info = store.create(parent.workspace, provider=parent.provider, model=parent.model,
                            title=title, parent_id=parent.id)
        for seq, message in enumerate(messages):
            store.append(info.id, seq, message)
        self.open(SessionRequest(resume=info.id))

    def take_error(self) -> str | None:
        """What went wrong while recording the session (once), or None."""
        error, self.error = self.error, None
        return error

    def list(self, limit: int = 20) -> list[SessionInfo]:
        if self.current is None:
            return []
        return self.current.store.list(str(self.settings.workspace), limit)

    def close(self) -> None:
        if self.current is not None:
            self.current.close(discard_if_empty=True)
            self.current = None

    def _on_message(self, message: Message) -> None:
        current = self.current
        if current is None:
            return
        if current.recorder.error:
            self.error = current.recorder.error
            current.recorder.error = None
        if not current.info.title and message.role == "user" and message.text.strip():
            from aiagent.infra.store.sessions import title_of

            current.store.set_title(current.info.id, title_of(message.text))
            current.info = current.store.get(current.info.id)
