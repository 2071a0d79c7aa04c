"""``session/list``: a person's stored sessions (not subagents'), newest first, a page at a
time, optionally only those of one folder; and the title a session gets from its first
prompt, so that the list says what each one was about.

The cursor is opaque to the client: the offset of the next page, base64url-encoded with a
marker. One this agent did not give (garbage, a negative or huge offset) is an
invalid-params error, never a traceback. Offsets drift if sessions are updated between two
pages (a session can then be seen twice or skipped); a listing is a snapshot for a picker.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp import RequestError, schema

from aiagent.infra.store.db import StoreError
from aiagent.infra.store.sessions import SessionInfo, SessionStore, title_of

log = logging.getLogger("aiagent.acp")

PAGE_SIZE = 50
_MARK = "aiagent-sessions:"
_CURSOR = re.compile(re.escape(_MARK) + r"(0|[1-9][0-9]{0,8})")


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{_MARK}{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The offset in a cursor :func:`encode_cursor` made; anything else: invalid params."""
    try:
        raw = base64.b64decode(cursor + "=" * (-len(cursor) % 4), altchars=b"-_", validate=True)
        match = _CURSOR.fullmatch(raw.decode("ascii"))
    except (binascii.Error, ValueError):
        match = None
    if match is None:
        raise RequestError.invalid_params(
            {"cursor": "not a cursor this agent gave; list again without one"})
    return int(match.group(1))


def workspace_of(cwd: str) -> str:
    """The folder as the store records it (resolved); a relative path: invalid params."""
    try:
        folder = Path(cwd)
        if not folder.is_absolute():
            raise ValueError
        return str(folder.resolve())
    except (OSError, ValueError):
        raise RequestError.invalid_params({"cwd": f"{cwd}: not an absolute path"}) from None


def page(cwd: str | None, cursor: str | None) -> schema.ListSessionsResponse:
    """One page of the listing (blocking: the database is read here)."""
    workspace = workspace_of(cwd) if cwd is not None else None
    offset = decode_cursor(cursor) if cursor else 0
    try:
        store = SessionStore.open()
    except StoreError as exc:
        raise RequestError.internal_error({"details": _line(exc)}) from None
    try:
        found = store.list(workspace, limit=PAGE_SIZE + 1, offset=offset)
    except (sqlite3.Error, StoreError) as exc:
        raise RequestError.internal_error({"details": f"cannot list the sessions: {_line(exc)}"}) from None
    finally:
        store.close()
    more = len(found) > PAGE_SIZE
    return schema.ListSessionsResponse(
        sessions=[session_info(s) for s in found[:PAGE_SIZE]],
        next_cursor=encode_cursor(offset + PAGE_SIZE) if more else None)


def session_info(info: SessionInfo) -> schema.SessionInfo:
    return schema.SessionInfo(session_id=info.id, cwd=info.workspace, title=info.title or None,
                              updated_at=iso_utc(info.updated_at))


def iso_utc(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def name_session(session: Any, text: str) -> None:
    """Give an untitled stored session the first line of this prompt as its title (as the
    TUI does); a failing write is logged, the prompt goes on."""
    if session.info.title or not text.strip():
        return
    try:
        session.store.set_title(session.info.id, title_of(text))
        session.info = session.store.get(session.info.id)
    except (sqlite3.Error, StoreError) as exc:
        log.warning("acp: session %s: could not save its title: %s", session.info.id, _line(exc))


def _line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
