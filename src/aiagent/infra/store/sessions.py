"""Sessions: conversations saved message by message, resumable, forkable, exportable.

A session belongs to the folder it was started in. Messages are written as they complete
(each in its own transaction), so a crash loses at most the turn in flight. Each session
also has a folder (``<data>/sessions/<id>/``) for files too big for the context.
"""

from __future__ import annotations

import builtins
import json
import shutil
import sqlite3
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.contracts.messages import Message, ToolResultBlock, Usage
from aiagent.infra.config import paths
from aiagent.infra.store import db
from aiagent.infra.store.messages import dumps, loads

TITLE_LIMIT = 80


class SessionNotFound(Exception):
    exit_code = 2


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    workspace: str
    title: str
    provider: str
    model: str
    parent_id: str | None
    created_at: float
    updated_at: float
    message_count: int = 0
    agent: str = ""  # a task subagent's label ("general#1"); "" = a person's session

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> SessionInfo:
        keys = row.keys()
        return cls(
            row["id"], row["workspace"], row["title"], row["provider"], row["model"],
            row["parent_id"], row["created_at"], row["updated_at"],
            row["message_count"] if "message_count" in keys else 0,
            row["agent"] if "agent" in keys else "",
        )


_SELECT = (
    "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
    "FROM sessions s"
)


def title_of(prompt: str) -> str:
    line = next((ln.strip() for ln in prompt.splitlines() if ln.strip()), "")
    return line if len(line) <= TITLE_LIMIT else line[: TITLE_LIMIT - 1] + "…"


class SessionStore:
    def __init__(self, conn: sqlite3.Connection, data_dir: Path) -> None:
        self.conn = conn
        self.data_dir = data_dir

    @classmethod
    def open(cls, env: Mapping[str, str] | None = None, path: Path | None = None, *,
             busy_ms: int = db.BUSY_TIMEOUT_MS) -> SessionStore:
        path = path or db.db_path(env)
        return cls(db.connect(path, busy_ms=busy_ms), path.parent)

    def close(self) -> None:
        self.conn.close()

    # ---- sessions ------------------------------------------------------------------

    def create(
        self, workspace: Path | str, *, provider: str = "", model: str = "", title: str = "",
        parent_id: str | None = None, agent: str = "",
    ) -> SessionInfo:
        """A new session; ``agent``: the label of a task subagent whose conversation this
        is (then ``parent_id`` is its parent's session)."""
        session_id, stamp = uuid.uuid4().hex[:12], db.now()
        self.conn.execute(
            "INSERT INTO sessions (id, workspace, title, provider, model, parent_id, created_at,"
            " updated_at, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, str(workspace), title, provider, model, parent_id, stamp, stamp, agent),
        )
        return self.get(session_id)

    def get(self, id_or_prefix: str) -> SessionInfo:
        """The session with this id, or the one whose id starts with this prefix."""
        key = id_or_prefix.strip()
        rows = self.conn.execute(
            f"{_SELECT} WHERE s.id = ? OR s.id LIKE ? ESCAPE '\\' ORDER BY s.id = ? DESC LIMIT 3",
            (key, _like_prefix(key), key),
        ).fetchall()
        if not key or not rows:
            raise SessionNotFound(f"no session {id_or_prefix!r} (see `aiagent sessions list`)")
        if rows[0]["id"] != key and len(rows) > 1:
            raise SessionNotFound(f"session id {id_or_prefix!r} is ambiguous; give more of it")
        return SessionInfo.from_row(rows[0])

    def latest(self, workspace: Path | str) -> SessionInfo | None:
        row = self.conn.execute(
            f"{_SELECT} WHERE s.workspace = ? AND s.agent = ''"
            " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1",
            (str(workspace),),
        ).fetchone()
        return SessionInfo.from_row(row) if row else None

    def list(self, workspace: Path | str | None = None, limit: int = 50,
             offset: int = 0) -> list[SessionInfo]:
        """A person's sessions (not subagents', see :meth:`children`), newest first;
        ``offset``: how many of the newest to skip (a page further on)."""
        where, params = ("AND s.workspace = ?", [str(workspace)]) if workspace else ("", [])
        rows = self.conn.execute(
            f"{_SELECT} WHERE s.agent = '' {where}"
            " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ? OFFSET ?",
            (*params, limit, max(offset, 0)),
        ).fetchall()
        return [SessionInfo.from_row(r) for r in rows]

    def children(self, session_id: str) -> builtins.list[SessionInfo]:
        """The sessions of the task subagents started in ``session_id``, oldest first."""
        rows = self.conn.execute(
            f"{_SELECT} WHERE s.parent_id = ? AND s.agent != '' ORDER BY s.created_at, s.rowid",
            (session_id,),
        ).fetchall()
        return [SessionInfo.from_row(r) for r in rows]

    def set_title(self, session_id: str, title: str) -> None:
        self.conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

    def delete(self, session_id: str) -> None:
        """Delete the session, and its subagents' sessions with it."""
        for child in self.children(session_id):
            self.delete(child.id)
        self.conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        shutil.rmtree(self.folder(session_id, create=False), ignore_errors=True)

    def folder(self, session_id: str, *, create: bool = True) -> Path:
        path = self.data_dir / "sessions" / session_id
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return path

    # ---- a hosted engine's own session (aiagent serve) --------------------------------

    def set_engine_session(self, session_id: str, engine: str, remote_id: str) -> None:
        """Remember the id another ACP engine gave this session's conversation."""
        self.conn.execute(
            "INSERT INTO engine_sessions (session_id, engine, remote_id, updated_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET engine = excluded.engine,"
            " remote_id = excluded.remote_id, updated_at = excluded.updated_at",
            (session_id, engine, remote_id, db.now()),
        )

    def engine_session(self, session_id: str) -> tuple[str, str] | None:
        """(engine, remote id) stored for this session, or None."""
        row = self.conn.execute(
            "SELECT engine, remote_id FROM engine_sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
        return (str(row["engine"]), str(row["remote_id"])) if row else None

    # ---- messages ------------------------------------------------------------------

    def append(
        self, session_id: str, seq: int, message: Message, *, model: str = "",
        usage: Usage | None = None,
    ) -> None:
        u, stamp = usage or Usage(), db.now()
        with _transaction(self.conn):
            self.conn.execute(
                "INSERT INTO messages (session_id, seq, role, content, model, input_tokens,"
                " output_tokens, cache_read_tokens, cache_write_tokens, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, seq, message.role, dumps(message), model, u.input_tokens,
                 u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, stamp),
            )
            self.conn.execute(
                "UPDATE sessions SET updated_at = ? WHERE id = ?", (stamp, session_id)
            )

    def append_next(
        self, session_id: str, message: Message, *, turn: tuple[int, ...] = (), model: str = "",
        usage: Usage | None = None,
    ) -> tuple[int, ...]:
        """Append after the session's last message, the number chosen inside the write
        transaction, so concurrent runs on one session never collide or drop a message.

        ``turn`` is the numbers of the messages this run wrote earlier in the same turn; if
        another run has written since, they move to the end first, so each turn stays in
        one piece. Returns the turn's numbers, this message last. A database locked by
        another process for longer than the busy timeout is retried a few times, then
        raised as :class:`~aiagent.infra.store.db.StoreError`.
        """
        return db.retry_busy(
            lambda: self._append_next(session_id, message, turn, model, usage or Usage()),
            f"session {session_id}: could not save a message", self.conn,
        )

    def _append_next(self, session_id: str, message: Message, turn: tuple[int, ...], model: str,
                     u: Usage) -> tuple[int, ...]:
        stamp = db.now()
        with _transaction(self.conn):
            row = self.conn.execute(
                "SELECT MAX(seq) FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()
            last = -1 if row[0] is None else int(row[0])
            if turn and last != turn[-1]:  # another run wrote in between: keep our turn whole
                for offset, seq in enumerate(turn, start=last + 1):
                    self.conn.execute("UPDATE messages SET seq = ? WHERE session_id = ? AND seq = ?",
                                      (offset, session_id, seq))
                turn, last = tuple(range(last + 1, last + 1 + len(turn))), last + len(turn)
            self.conn.execute(
                "INSERT INTO messages (session_id, seq, role, content, model, input_tokens,"
                " output_tokens, cache_read_tokens, cache_write_tokens, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, last + 1, message.role, dumps(message), model, u.input_tokens,
                 u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, stamp),
            )
            self.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (stamp, session_id))
        return (*turn, last + 1)

    def replace(self, session_id: str, seq: int, message: Message) -> None:
        """Store ``message`` in place of message ``seq`` (a prompt a hook added to, or blanked)."""
        with _transaction(self.conn):
            self.conn.execute("UPDATE messages SET content = ? WHERE session_id = ? AND seq = ?",
                              (dumps(message), session_id, seq))

    def messages(self, session_id: str) -> builtins.list[Message]:
        rows = self.conn.execute(
            "SELECT role, content FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
        return [loads(r["role"], r["content"]) for r in rows]

    def message_rows(self, session_id: str) -> builtins.list[sqlite3.Row]:
        return self.conn.execute(
            "SELECT * FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()

    def fork(self, session_id: str) -> SessionInfo:
        """A new session with a copy of this one's messages and compaction state."""
        source = self.get(session_id)
        title = f"{source.title} (fork)" if source.title else "(fork)"
        new = self.create(
            source.workspace, provider=source.provider, model=source.model, title=title,
            parent_id=source.id,
        )
        with _transaction(self.conn):
            self.conn.execute(
                "INSERT INTO messages SELECT ?, seq, role, content, model, input_tokens,"
                " output_tokens, cache_read_tokens, cache_write_tokens, created_at"
                " FROM messages WHERE session_id = ?",
                (new.id, source.id),
            )
            self.conn.execute(
                "INSERT INTO compactions (session_id, plan, created_at)"
                " SELECT ?, plan, created_at FROM compactions WHERE session_id = ? ORDER BY id",
                (new.id, source.id),
            )
        old_folder = self.folder(source.id, create=False)
        if old_folder.is_dir():
            shutil.copytree(old_folder, self.folder(new.id, create=False), dirs_exist_ok=True)
        return self.get(new.id)

    # ---- compaction state ----------------------------------------------------------

    def save_compaction(self, session_id: str, plan: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO compactions (session_id, plan, created_at) VALUES (?, ?, ?)",
            (session_id, json.dumps(plan, ensure_ascii=False), db.now()),
        )

    def latest_compaction(self, session_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT plan FROM compactions WHERE session_id = ? ORDER BY id DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        return json.loads(row["plan"]) if row else None


def repair_tail(messages: list[Message]) -> Message | None:
    """After a crash mid-turn the history may end with tool calls that never got results.
    Return the message that closes them (providers reject unanswered tool calls), or None."""
    if not messages or messages[-1].role != "assistant" or not messages[-1].tool_uses:
        return None
    note = "not run: the session ended before this tool call finished (it may have run in part)"
    return Message("user", [ToolResultBlock(u.id, note, True) for u in messages[-1].tool_uses])


class SessionRecorder:
    """A conversation listener writing each message as it is appended.

    Numbers are allocated by the store at write time (``next_seq`` is only the number
    expected), so two runs continuing one session both keep every message; each run's
    turn stays contiguous. ``usage_total`` returns the run's usage so far; each assistant
    message is stored with the usage added since the previous one. A write failure is
    kept in :attr:`error` (the run goes on; the front-end reports it and exits non-zero)
    rather than ending the user's turn.
    """

    def __init__(
        self, store: SessionStore, session_id: str, next_seq: int, *, model: str = "",
        usage_total: Callable[[], Usage] | None = None,
    ) -> None:
        self.store, self.session_id, self.seq, self.model = store, session_id, next_seq, model
        self.usage_total = usage_total
        self._seen = Usage()
        self._turn: tuple[int, ...] = ()
        self.error: str | None = None

    def __call__(self, message: Message) -> None:
        usage = None
        if message.role == "assistant" and self.usage_total is not None:
            total = self.usage_total()
            usage = _minus(total, self._seen)
            self._seen = total
        if _starts_turn(message):
            self._turn = ()
        try:
            self._turn = self.store.append_next(self.session_id, message, turn=self._turn,
                                                model=self.model, usage=usage)
        except (sqlite3.Error, db.StoreError) as exc:
            self.error = self.error or f"session {self.session_id} could not be saved: {exc}"
            return
        self.seq = self._turn[-1] + 1


    def amend_prompt(self, message: Message) -> None:
        """Save ``message`` again as this turn's prompt: a user hook changed it after it was
        appended (added context to it, or blanked a blocked prompt)."""
        if not self._turn or not _starts_turn(message):
            return
        try:
            self.store.replace(self.session_id, self._turn[0], message)
            if self._turn[0] == 0:  # the title came from this prompt
                self.store.set_title(self.session_id, title_of(message.text))
        except (sqlite3.Error, db.StoreError) as exc:
            self.error = self.error or f"session {self.session_id} could not be saved: {exc}"


def _starts_turn(message: Message) -> bool:
    """A person's message (not tool results) begins a turn."""
    return message.role == "user" and not any(isinstance(b, ToolResultBlock) for b in message.content)


def _minus(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.input_tokens - b.input_tokens, a.output_tokens - b.output_tokens,
        a.cache_read_tokens - b.cache_read_tokens, a.cache_write_tokens - b.cache_write_tokens,
    )


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class _transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        try:
            if kind is None:
                self.conn.execute("COMMIT")
        finally:
            if self.conn.in_transaction:  # an error, or a COMMIT that failed
                self.conn.execute("ROLLBACK")


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    return paths.data_dir(env)
