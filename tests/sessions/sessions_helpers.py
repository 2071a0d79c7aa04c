"""Helpers for the session tests: provider environment, a FakeLLM that answers
compaction requests with a summary, and reading the database the CLI wrote."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiagent.testing import FakeLLM, Turn

COMPACT_MARK = "You write the summary that replaces the earlier part"


def anthropic_env(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def provider_env(provider: str, fake: FakeLLM) -> dict[str, str]:
    return {
        "anthropic": anthropic_env(fake),
        "openai": {"OPENAI_BASE_URL": fake.url + "/v1", "OPENAI_API_KEY": "sk-test-abcdef123"},
        "ollama": {"OLLAMA_HOST": fake.url},
    }[provider]


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of a request in any of the three wire formats."""
    system = body.get("system")
    if system is None:
        msgs = body.get("messages", [])
        system = msgs[0].get("content") if msgs and msgs[0].get("role") == "system" else ""
    return json.dumps(system)


def is_compaction(body: dict[str, Any]) -> bool:
    return COMPACT_MARK in system_text(body)


class MeteredFake(FakeLLM):
    """Reports input tokens like a real provider would (about four characters a token)
    instead of the script's fixed usage."""

    def next_turn(self, request: dict[str, Any] | None = None) -> tuple[Turn, int]:
        with self._lock:
            body = self.requests[-1]["json"] if self.requests else {}
        turn, serial = self._pick(body if isinstance(body, dict) else {})
        return replace(turn, usage=(len(json.dumps(body)) // 4, turn.usage[1])), serial

    def _pick(self, body: dict[str, Any]) -> tuple[Turn, int]:
        return super().next_turn()


class SummarisingFake(MeteredFake):
    """Answers every compaction request with ``summary`` (``None``: an HTTP 400 error);
    other requests follow the script."""

    def __init__(self, script: list[Turn], summary: str | None, **kwargs: Any) -> None:
        super().__init__(script, **kwargs)
        self.summary = summary

    def _pick(self, body: dict[str, Any]) -> tuple[Turn, int]:
        if is_compaction(body):
            if self.summary is None:
                return Turn(status=400, error_message="summaries are not allowed"), 0
            return Turn(text=self.summary, usage=(500, 60)), 0
        return super()._pick(body)


def chat_requests(fake: FakeLLM) -> list[dict[str, Any]]:
    return [r["json"] for r in fake.requests if r["json"] and not is_compaction(r["json"])]


def db_rows(home_env: dict[str, str], sql: str, *params: Any) -> list[tuple[Any, ...]]:
    path = Path(home_env["XDG_DATA_HOME"]) / "aiagent" / "aiagent.db"
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:  # not created yet
        if "no such table" in str(exc):
            return []
        raise
    finally:
        conn.close()


def without_cache_marks(value: Any) -> Any:
    """Anthropic requests carry a moving ``cache_control`` marker on the newest block; it
    tells the API where to cache and is not part of the cached content."""
    if isinstance(value, dict):
        return {k: without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_cache_marks(v) for v in value]
    return value
