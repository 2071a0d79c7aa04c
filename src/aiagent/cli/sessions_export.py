"""Sessions as Markdown or JSON, and on-demand compaction, for ``aiagent sessions``."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from aiagent.core.redact import SecretMasker
from aiagent.store.sessions import SessionInfo


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def to_markdown(info: SessionInfo, rows: list[sqlite3.Row]) -> str:
    mask = SecretMasker.from_env(os.environ)
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created_at))
    lines = [f"# {mask(info.title) or 'Session'}", "",
             f"Session `{info.id}` · {info.workspace} · {info.provider} {info.model} · {stamp}", ""]
    for row in rows:
        for block in json.loads(row["content"]):
            lines += _block_md(row["role"], block, mask)
    return "\n".join(lines).rstrip("\n") + "\n"


def _block_md(role: str, block: dict[str, Any], mask: SecretMasker) -> list[str]:
    kind = block.get("type")
    if kind == "text":
        return [f"## {'User' if role == 'user' else 'Assistant'}", "", mask(block["text"]), ""]
    if kind == "tool_use":
        args = json.dumps(block.get("input", {}), ensure_ascii=False, indent=2)
        return [f"### Tool call `{block['name']}`", "", "```json", mask(args), "```", ""]
    label = "Tool error" if block.get("is_error") else "Tool result"
    return [f"**{label}:**", "", _fence(mask(str(block.get("content", "")))), ""]


def to_json(info: SessionInfo, rows: list[sqlite3.Row]) -> str:
    mask = SecretMasker.from_env(os.environ)
    messages = []
    for row in rows:
        content = json.loads(mask(row["content"])) if mask.values else json.loads(row["content"])
        messages.append({
            "seq": row["seq"], "role": row["role"], "content": content, "model": row["model"],
            "usage": {k: row[k] for k in ("input_tokens", "output_tokens", "cache_read_tokens",
                                           "cache_write_tokens")},
            "created_at": row["created_at"],
        })
    data = {
        "id": info.id, "title": info.title, "workspace": info.workspace,
        "provider": info.provider, "model": info.model, "parent_id": info.parent_id,
        "created_at": info.created_at, "updated_at": info.updated_at, "messages": messages,
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def compact_session(session_id: str) -> str:
    """Summarise the session's older turns now; the next resume sends the compacted view."""
    import asyncio

    from aiagent.app import Application
    from aiagent.config.settings import ConfigError, Settings
    from aiagent.contracts.providers import ProviderError
    from aiagent.core.session import SessionRequest

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
    from aiagent.store.sessions import SessionStore

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
