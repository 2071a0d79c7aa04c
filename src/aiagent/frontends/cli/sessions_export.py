"""Sessions as Markdown or JSON, and on-demand compaction, for ``aiagent sessions``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.agent.core.export import to_json, to_markdown
from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.contracts.providers import ProviderError
from aiagent.infra.config.settings import ConfigError, Settings
from aiagent.infra.store.sessions import SessionStore

__all__ = ["compact_session", "to_json", "to_markdown"]


def compact_session(session_id: str) -> str:
    """Summarise the session's older turns now; the next resume sends the compacted view."""
    import asyncio


    started = None
    try:
        settings = Settings.load(_workspace_of(session_id))
        started = Application(settings, interactive=False).start(SessionRequest(resume=session_id))
        event = asyncio.run(_compact(started.agent))
    except (ConfigError, ProviderError, RuntimeError) as exc:
        raise SystemExit(_error(str(exc), getattr(exc, "exit_code", 1))) from None
    finally:
        if started is not None:
            started.close()
    if event is None:
        return f"session {session_id}: nothing to compact\n"
    return (f"compacted session {started.session.info.id}: about {event.before_tokens} → "
            f"{event.after_tokens} tokens sent\n")


async def _compact(agent: Any) -> Any:
    try:
        return await agent.compact()
    finally:
        await agent.aclose()


def _workspace_of(session_id: str) -> Path:

    store = SessionStore.open()
    try:
        workspace = Path(store.get(session_id).workspace)
    finally:
        store.close()
    return workspace if workspace.is_dir() else Path.cwd()


def _error(message: str, code: int) -> int:
    import click

    click.echo(f"aiagent: error: {message}", err=True)
    return code
