"""Saved approval answers (grants) and the audit log.

A grant says: this tool (or tool family), for this pattern, is allowed or denied, for this
session, this project, or everywhere. Revoked grants are kept (with ``revoked_at``) so the
audit log can still say what they covered. Reads always go to the database, so a grant
saved or revoked by another process takes effect at once.
"""

from __future__ import annotations

import builtins
import sqlite3
from dataclasses import dataclass
from typing import Literal

from aiagent.infra.store import db

Effect = Literal["allow", "deny"]
Scope = Literal["session", "project", "always"]


@dataclass(frozen=True, slots=True)
class Grant:
    id: int
    tool: str
    pattern: str
    effect: Effect
    scope: Scope
    project: str
    session_id: str
    source: str
    created_at: float
    revoked_at: float | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Grant:
        return cls(
            row["id"], row["tool"], row["pattern"], row["effect"], row["scope"],
            row["project"], row["session_id"], row["source"], row["created_at"], row["revoked_at"],
        )

    @property
    def label(self) -> str:
        return f"{self.tool}:{self.pattern}" if self.pattern else self.tool


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    at: float
    action: str
    tool: str
    what: str
    scope: str
    grant_id: int | None
    project: str
    session_id: str


class ApprovalStore:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def add(
        self, tool: str, pattern: str, effect: Effect, scope: Scope, *, project: str = "",
        session_id: str = "", source: str = "user",
    ) -> Grant:
        """Save a grant (or return the identical live one) and audit it."""
        project = project if scope == "project" else ""
        session_id = session_id if scope == "session" else ""
        existing = self.conn.execute(
            "SELECT * FROM grants WHERE tool = ? AND pattern = ? AND effect = ? AND scope = ?"
            " AND project = ? AND session_id = ? AND revoked_at IS NULL",
            (tool, pattern, effect, scope, project, session_id),
        ).fetchone()
        if existing:
            return Grant.from_row(existing)
        cursor = self.conn.execute(
            "INSERT INTO grants (tool, pattern, effect, scope, project, session_id, source,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (tool, pattern, effect, scope, project, session_id, source, db.now()),
        )
        grant = self.get(int(cursor.lastrowid or 0))
        self.audit("grant" if effect == "allow" else "deny-rule", tool, pattern, scope,
                   grant_id=grant.id, project=project, session_id=session_id)
        return grant

    def get(self, grant_id: int) -> Grant:
        row = self.conn.execute("SELECT * FROM grants WHERE id = ?", (grant_id,)).fetchone()
        if row is None:
            raise KeyError(grant_id)
        return Grant.from_row(row)

    def live(self, tools: tuple[str, ...], *, project: str, session_id: str) -> list[Grant]:
        """Unrevoked grants for these tool names that apply in this project and session."""
        marks = ",".join("?" * len(tools))
        rows = self.conn.execute(
            f"SELECT * FROM grants WHERE revoked_at IS NULL AND tool IN ({marks}) AND ("
            " scope = 'always' OR (scope = 'project' AND project = ?)"
            " OR (scope = 'session' AND session_id = ?)) ORDER BY id",
            (*tools, project, session_id),
        ).fetchall()
        return [Grant.from_row(r) for r in rows]

    def list(self, *, project: str | None = None, include_revoked: bool = False) -> list[Grant]:
        clauses, params = [], []
        if not include_revoked:
            clauses.append("revoked_at IS NULL")
        if project is not None:
            clauses.append("(scope = 'always' OR project = ?)")
            params.append(project)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.conn.execute(f"SELECT * FROM grants {where} ORDER BY id", params).fetchall()
        return [Grant.from_row(r) for r in rows]

    def revoke(self, grant_id: int) -> Grant:
        grant = self.get(grant_id)
        if grant.revoked_at is None:
            self.conn.execute(
                "UPDATE grants SET revoked_at = ? WHERE id = ?", (db.now(), grant_id)
            )
            self.audit("revoke", grant.tool, grant.pattern, grant.scope, grant_id=grant_id,
                       project=grant.project, session_id=grant.session_id)
        return self.get(grant_id)

    def clear(self, *, project: str | None = None) -> int:
        """Revoke every live grant (only this project's with ``project``); return how many."""
        grants = [g for g in self.list() if project is None or g.project == project]
        for grant in grants:
            self.revoke(grant.id)
        return len(grants)

    def audit(
        self, action: str, tool: str, what: str, scope: str = "", *, grant_id: int | None = None,
        project: str = "", session_id: str = "",
    ) -> None:
        self.conn.execute(
            "INSERT INTO audit (at, action, tool, what, scope, grant_id, project, session_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (db.now(), action, tool, what, scope, grant_id, project, session_id),
        )

    def audit_log(self, limit: int = 100) -> builtins.list[AuditEntry]:
        rows = self.conn.execute(
            "SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [AuditEntry(*tuple(r)) for r in reversed(rows)]
