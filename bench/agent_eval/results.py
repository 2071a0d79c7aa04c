"""The run's results in SQLite (``OUT/results.sqlite``): one row per task, written when the
task ends, so an interrupted run resumes where it stopped (tasks in flight start again).
Each row says how its check ran (``checks``: ``sandboxed: BACKEND`` or unsandboxed)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from attempt import Outcome

SCHEMA = """CREATE TABLE IF NOT EXISTS result (
    key TEXT PRIMARY KEY, language TEXT NOT NULL, passed INTEGER NOT NULL, attempts INTEGER NOT NULL,
    turns INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cost_usd REAL, seconds REAL NOT NULL, status TEXT NOT NULL, exits TEXT NOT NULL,
    run TEXT NOT NULL, checks TEXT NOT NULL DEFAULT 'unsandboxed')"""
# results files written before checks were sandboxed: their checks ran unsandboxed
ADD_CHECKS = "ALTER TABLE result ADD COLUMN checks TEXT NOT NULL DEFAULT 'unsandboxed'"
COLUMNS = ("key", "language", "passed", "attempts", "turns", "input_tokens", "output_tokens",
           "cost_usd", "seconds", "status", "exits", "checks")


class Results:
    def __init__(self, path: Path, run: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute(SCHEMA)
        if "checks" not in {row[1] for row in self.db.execute("PRAGMA table_info(result)")}:
            with self.db:
                self.db.execute(ADD_CHECKS)
        self.run = run  # what the row was measured with (provider and model)

    def done(self) -> set[str]:
        """Keys of the tasks already finished with this run's provider and model."""
        return {row[0] for row in self.db.execute("SELECT key FROM result WHERE run = ?", (self.run,))}

    def record(self, outcome: Outcome) -> None:
        row = outcome.as_row()
        row["exits"] = json.dumps(row["exits"])
        row["passed"] = int(row["passed"])
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO result ({', '.join(COLUMNS)}, run) "
                            f"VALUES ({', '.join('?' * len(COLUMNS))}, ?)",
                            [row[c] for c in COLUMNS] + [self.run])

    def rows(self) -> list[dict[str, Any]]:
        cursor = self.db.execute(f"SELECT {', '.join(COLUMNS)} FROM result WHERE run = ? ORDER BY key",
                                 (self.run,))
        return [dict(zip(COLUMNS, values, strict=True)) for values in cursor]

    def close(self) -> None:
        self.db.close()
