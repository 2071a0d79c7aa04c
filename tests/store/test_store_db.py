from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from aiagent.infra.store import db


def test_creates_database_in_xdg_data_dir_with_wal(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    conn = db.connect(env=env)
    assert db.db_path(env) == tmp_path / "data" / "aiagent" / "aiagent.db"
    assert db.db_path(env).is_file()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.schema_version(conn) == len(db.migrations())
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "messages", "grants", "audit", "compactions"} <= tables


def test_migrations_are_numbered_and_idempotent(tmp_path: Path) -> None:
    numbers = [n for n, _, _ in db.migrations()]
    assert numbers == list(range(1, len(numbers) + 1))
    path = tmp_path / "a.db"
    db.connect(path).close()
    conn = db.connect(path)  # second open applies nothing
    assert db.migrate(conn) == len(numbers)


def test_partial_database_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path, isolation_level=None)
    for statement in db._statements(db.migrations()[0][2]):
        raw.execute(statement)
    raw.execute("PRAGMA user_version = 1")
    raw.close()
    conn = db.connect(path)
    assert db.schema_version(conn) == len(db.migrations())


def test_newer_schema_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 999")
    raw.close()
    with pytest.raises(db.StoreError, match="newer aiagent"):
        db.connect(path)


def test_garbage_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(db.StoreError, match="junk.db"):
        db.connect(path)
