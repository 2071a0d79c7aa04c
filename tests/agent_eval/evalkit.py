"""What the agent-eval tests share besides fixtures: a run's results, read back."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def result_rows(out: Path) -> dict[str, dict[str, Any]]:
    """The rows of ``out/results.sqlite``, by task key (read apart from the harness)."""
    db = sqlite3.connect(out / "results.sqlite")
    db.row_factory = sqlite3.Row
    try:
        return {row["key"]: dict(row) for row in db.execute("SELECT * FROM result")}
    finally:
        db.close()
