"""The user's SQLite database: one file in the XDG data folder, WAL, numbered migrations.

Migrations are the ``migrations/NNN_name.sql`` package files, applied in order; the
database's ``user_version`` is the number of the last one applied. A database written by a
newer aiagent (a higher version than we know) is refused with a clear message rather than
guessed at.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from aiagent.config import paths

DB_NAME = "aiagent.db"
BUSY_TIMEOUT_MS = 5000


class StoreError(Exception):
    """The database cannot be used. One line naming the file."""

    exit_code = 1


def db_path(env: Mapping[str, str] | None = None) -> Path:
    return paths.data_dir(env) / DB_NAME


def migrations() -> list[tuple[int, str, str]]:
    """(number, name, sql) for every packaged migration, in order."""
    folder = resources.files("aiagent.store").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = re.fullmatch(r"(\d+)_(\w+)\.sql", entry.name)
        if match:
            found.append((int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    found.sort()
    numbers = [n for n, _, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise StoreError(f"store migrations are not numbered 1..n: {numbers}")
    return found


def connect(path: Path | None = None, env: Mapping[str, str] | None = None) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database; autocommit, WAL, foreign keys."""
    path = path or db_path(env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot open the database: {exc}") from None
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: not a usable aiagent database: {exc}") from None
    return conn


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, path: Path | str = "database") -> int:
    """Apply the migrations the database lacks; return the resulting version."""
    steps = migrations()
    current = schema_version(conn)
    if current > len(steps):
        raise StoreError(
            f"{path}: written by a newer aiagent (schema {current}, this one knows "
            f"{len(steps)}); upgrade aiagent"
        )
    for number, _name, sql in steps[current:]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn) >= number:  # another process got here first
                conn.execute("COMMIT")
                continue
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return schema_version(conn)


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (no triggers in our migrations, so ';' ends one)."""
    text = "\n".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def now() -> float:
    return time.time()
