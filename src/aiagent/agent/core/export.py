"""A stored session as Markdown or JSON (``aiagent sessions export`` and the web page's
Export): the stored content, with the environment's secrets masked."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from typing import Any

from aiagent.agent.core.redact import SecretMasker
from aiagent.infra.store.sessions import SessionInfo


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
    if kind == "image":  # an image the user attached: named, not inlined
        return [f"*Image attached: {mask(str(block.get('name') or 'image'))} ({block.get('media_type')})*", ""]
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
