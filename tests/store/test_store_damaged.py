"""A damaged database file is reported as such, naming the file and what to do."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from aiagent.contracts.messages import Message
from aiagent.infra.store.db import DamagedDatabase, StoreError
from aiagent.infra.store.sessions import SessionStore

PAGE = 4096


def filled_database(path: Path, sessions: int = 30) -> list[str]:
    """A database big enough that its tables span many pages; WAL folded into the file."""
    store = SessionStore.open(path=path)
    ids = []
    for i in range(sessions):
        info = store.create("/w", title=f"session {i} " * 10)
        ids.append(info.id)
        for j in range(4):
            store.append(info.id, j, Message.user(f"message {j} " * 150))
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return ids


def overwrite_pages(path: Path, pages: range) -> None:
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek(PAGE * page)
            handle.write(os.urandom(PAGE))


def test_a_garbage_page_is_reported_with_the_path(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    ids = filled_database(path)
    overwrite_pages(path, range(2, 6))
    with pytest.raises(DamagedDatabase) as info:
        store = SessionStore.open(path=path)
        for session in ids:
            store.messages(session)
        store.list()
    message = str(info.value)
    assert message.startswith(f"the sessions database at {path} is damaged (")
    assert "move it aside" in message and "\n" not in message
    assert isinstance(info.value, StoreError) and isinstance(info.value, sqlite3.DatabaseError)
    assert info.value.exit_code == 2


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    path.write_bytes(os.urandom(3 * PAGE))
    with pytest.raises(DamagedDatabase, match=r"is damaged \(file is not a database\)"):
        SessionStore.open(path=path)


def test_a_healthy_database_reads_and_writes_as_before(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    ids = filled_database(path, sessions=3)
    store = SessionStore.open(path=path)
    assert len(store.list()) == 3 and len(store.messages(ids[0])) == 4
    rows = list(store.conn.execute("SELECT id FROM sessions"))  # iterating a cursor works too
    assert sorted(r["id"] for r in rows) == sorted(ids)


def test_other_sql_errors_are_not_called_damage(tmp_path: Path) -> None:
    store = SessionStore.open(path=tmp_path / "aiagent.db")
    with pytest.raises(sqlite3.OperationalError) as info:
        store.conn.execute("SELECT nope FROM sessions")
    assert not isinstance(info.value, DamagedDatabase)
