"""Incremental scan cache: findings per (scanner signature, path, content hash), in SQLite."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any


def cache_key(signature: str, rel: str, data: bytes) -> str:
    h = hashlib.sha256(signature.encode())
    h.update(b"\0" + rel.encode() + b"\0")
    h.update(data)
    return h.hexdigest()


class ScanCache:
    """A small key → JSON store; a broken or missing cache never fails a scan."""

    def __init__(self, path: Path | None) -> None:
        self._db: sqlite3.Connection | None = None
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS file_findings (key TEXT PRIMARY KEY, payload TEXT)"
            )
        except sqlite3.Error:
            self._db = None

    def get_many(self, keys: list[str]) -> dict[str, Any]:
        if self._db is None or not keys:
            return {}
        out: dict[str, Any] = {}
        try:
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, payload FROM file_findings WHERE key IN ({marks})", chunk
                )
                out.update((k, json.loads(p)) for k, p in rows)
        except sqlite3.Error:
            return {}
        return out

    def put_many(self, items: dict[str, Any]) -> None:
        if self._db is None or not items:
            return
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO file_findings (key, payload) VALUES (?, ?)",
                    [(k, json.dumps(v)) for k, v in items.items()],
                )
        except sqlite3.Error:
            return

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
