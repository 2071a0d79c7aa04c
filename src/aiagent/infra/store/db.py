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
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from aiagent.infra.config import paths

DB_NAME = "aiagent.db"
BUSY_TIMEOUT_MS = 5000
_T = TypeVar("_T")


class StoreError(Exception):
    """The database cannot be used. One line naming the file and what to do (exit 2: the
    user's environment needs a fix, not aiagent)."""

    exit_code = 2


class DamagedDatabase(StoreError, sqlite3.DatabaseError):
    """SQLite found the file corrupt. Still a ``sqlite3.DatabaseError``, so code that
    handles database errors handles this one too."""


def damaged(path: Path | str, exc: BaseException) -> DamagedDatabase:
    return DamagedDatabase(
        f"the sessions database at {path} is damaged ({exc}); move it aside "
        f"(mv '{path}' '{path}.damaged') and aiagent starts a new one"
    )


def is_damage(exc: BaseException) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    text = str(exc)
    return name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in text or "not a database" in text


@contextmanager
def translating(path: Path | str) -> Iterator[None]:
    """Turn SQLite's "corrupt" errors into :class:`DamagedDatabase` naming ``path``."""
    try:
        yield
    except DamagedDatabase:
        raise
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise damaged(path, exc) from exc
        raise


class GuardedCursor(sqlite3.Cursor):
    """A cursor whose reads and writes report a damaged file as :class:`DamagedDatabase`
    (corruption often shows only when a damaged page is read, in the middle of a fetch)."""

    def _call(self, method: Callable[..., _T], *args: Any) -> _T:
        with translating(getattr(self.connection, "path", "the database")):
            return method(*args)

    def execute(self, sql: str, parameters: Any = (), /) -> GuardedCursor:
        self._call(super().execute, sql, parameters)
        return self

    def executemany(self, sql: str, seq: Any, /) -> GuardedCursor:
        self._call(super().executemany, sql, seq)
        return self

    def fetchone(self) -> Any:
        return self._call(super().fetchone)

    def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._call(super().fetchmany, self.arraysize if size is None else size)

    def fetchall(self) -> list[Any]:
        return self._call(super().fetchall)

    def __next__(self) -> Any:
        return self._call(super().__next__)


class GuardedConnection(sqlite3.Connection):
    path: str = "the database"
    busy_ms: int = BUSY_TIMEOUT_MS

    def cursor(self, factory: Any = GuardedCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> GuardedCursor:
        cursor: GuardedCursor = self.cursor()
        return cursor.execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> GuardedCursor:
        cursor: GuardedCursor = self.cursor()
        return cursor.executemany(sql, parameters)


def db_path(env: Mapping[str, str] | None = None) -> Path:
    return paths.data_dir(env) / DB_NAME


def migrations() -> list[tuple[int, str, str]]:
    """(number, name, sql) for every packaged migration, in order."""
    folder = resources.files("aiagent.infra.store").joinpath("migrations")
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


def connect(path: Path | None = None, env: Mapping[str, str] | None = None, *,
            busy_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database; autocommit, WAL, foreign keys.
    ``busy_ms``: how long a statement waits for another process's write lock."""
    path = path or db_path(env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=busy_ms / 1000, isolation_level=None,
                               factory=GuardedConnection)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot open the database: {exc}") from None
    try:
        conn.path, conn.busy_ms = str(path), busy_ms
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, path)
    except DamagedDatabase:
        conn.close()
        raise
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: not a usable aiagent database: {exc}") from None
    return conn


BUSY_RETRIES = 3


def retry_busy(action: Callable[[], _T], what: str, conn: sqlite3.Connection) -> _T:
    """Run a write transaction; when another process keeps the database locked past the
    busy timeout, try again a few times, then raise one clear :class:`StoreError`."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if attempt == BUSY_RETRIES:
                path = getattr(conn, "path", "the database")
                waited = (BUSY_RETRIES + 1) * getattr(conn, "busy_ms", BUSY_TIMEOUT_MS) / 1000
                raise StoreError(
                    f"{what}: {path} stayed locked by another process for {waited:g} s; "
                    "nothing was saved"
                ) from None
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("not reached")


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
