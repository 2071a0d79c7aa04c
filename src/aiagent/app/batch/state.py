"""The state file of a batch (``DIR/state.sqlite``): one row per task and its outcome.

Written by the driver alone, one committed row per finished task, so an interrupted batch
loses at most the tasks that were running. A re-run skips the tasks whose status is
``done`` or ``failed`` (a failure is an outcome too) unless ``--force``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY,
    job TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL
);
"""
FINISHED = ("done", "failed")


class StateError(RuntimeError):
    """A state file that cannot be opened or is damaged."""


class BatchState:
    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=30, isolation_level=None,
                                       check_same_thread=False)  # the driver locks
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StateError(f"{path}: cannot use the state file ({exc})") from None
        self.path = path

    def finished(self, job: str) -> dict[str, dict[str, Any]]:
        """The results of the tasks of ``job`` that have an outcome, by key."""
        rows = self._db.execute(
            "SELECT key, result FROM tasks WHERE job = ? AND status IN (?, ?)", (job, *FINISHED))
        return {key: json.loads(result) for key, result in rows}

    def started(self, key: str, job: str, name: str) -> None:
        self._db.execute(
            "INSERT INTO tasks (key, job, name, status, result, attempts, updated) "
            "VALUES (?, ?, ?, 'running', '{}', 1, ?) ON CONFLICT(key) DO UPDATE SET "
            "status = 'running', attempts = attempts + 1, updated = excluded.updated",
            (key, job, name, time.time()))

    def record(self, key: str, result: dict[str, Any]) -> None:
        self._db.execute("UPDATE tasks SET status = ?, result = ?, updated = ? WHERE key = ?",
                         (result["status"], json.dumps(result, sort_keys=True), time.time(), key))

    def attempts(self, key: str) -> int:
        row = self._db.execute("SELECT attempts FROM tasks WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self._db.close()
