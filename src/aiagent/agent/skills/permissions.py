"""Skill permissions (spec §4.5, ADR-009): declared in the manifest, approved on first
activation (once / session / project / always / deny), stored with a timestamp, revocable,
and enforced at every host call with per-turn rate limits.

A permission may carry a path scope after a second colon: ``file:read:docs/`` lets the skill
read only under ``docs/``; plain ``file:read`` means the whole project, never outside it.

Grants are kept behind the small :class:`GrantStore` protocol. :class:`SqliteGrantStore`
maps it onto the shared :class:`aiagent.infra.store.approvals.ApprovalStore` (tool ``skill:NAME``,
pattern = the permission, with its audit log); :class:`MemoryGrantStore` serves tests and
homes where the database cannot be opened.
"""

from __future__ import annotations

import fnmatch
import posixpath
import time
import tomllib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from aiagent.agent.permissions import commands
from aiagent.agent.skills.config import duration
from aiagent.infra.process.environment import is_secret_name as credential
from aiagent.infra.store.approvals import ApprovalStore
from aiagent.infra.store.db import connect

PERMISSIONS: dict[str, tuple[str, str]] = {
    "file:read": ("Read files within the project", "low"),
    "file:write": ("Create, modify or delete files within the project", "medium"),
    "shell:exec": ("Run commands", "high"),
    "net:fetch": ("Make HTTP requests", "medium"),
    "llm:call": ("Make extra LLM calls (uses tokens)", "medium"),
    "git:read": ("Read git history, branches and diffs", "low"),
    "git:write": ("Create commits, branches and tags", "medium"),
    "env:read": ("Read the environment variables named (env:read:NAME); never secrets", "medium"),
    "env:write": ("Set environment variables for child processes", "high"),
    "skill:invoke": ("Call other skills' functions", "low"),
}
ANSWERS = ("once", "session", "project", "always", "deny")


class PermissionDenied(Exception):
    """A skill asked for something its permissions do not allow. One clear line."""


def base_permission(perm: str) -> str:
    return ":".join(perm.split(":", 2)[:2])


def path_scopes(declared: Iterable[str], kind: str) -> list[str] | None:
    """The path scopes of ``kind`` (``file:read``…): [] means the whole project, None means
    the permission is not declared at all."""
    scopes: list[str] | None = None
    for perm in declared:
        if base_permission(perm) != kind:
            continue
        scopes = scopes or []
        rest = perm.split(":", 2)[2] if perm.count(":") >= 2 else ""
        if not rest:
            return []
        scopes.append(rest)
    return scopes


def in_scope(rel: str, scope: str) -> bool:
    """Is project-relative ``rel`` inside ``scope`` (``docs/``, ``./src``, ``.env``,
    ``*.md``)? Leading dots of names are kept: ``.env`` is not ``env``. A scope that
    leaves the project (``../x``, ``/etc``) matches nothing."""
    norm = normalise_scope(scope)
    if norm is None:
        return False
    if not norm:
        return True
    if any(ch in norm for ch in "*?["):
        return fnmatch.fnmatchcase(rel, norm)
    return rel == norm or rel.startswith(norm + "/")


def normalise_scope(scope: str) -> str | None:
    """``./docs/`` → ``docs``; ``.`` → ``""`` (the whole project); outside → None."""
    text = scope.strip()
    if text.startswith("/"):
        return None
    norm = posixpath.normpath(text) if text else "."
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../"):
        return None
    return norm


# ---- environment variables ------------------------------------------------------------


@cache
def _env_rules() -> dict[str, Any]:
    text = resources.files("aiagent.agent.skills").joinpath("data/environment.toml").read_text("utf-8")
    return tomllib.loads(text)


def is_secret_name(name: str) -> bool:

    upper = name.upper()
    return credential(name) or any(fnmatch.fnmatchcase(upper, p) for p in _env_rules()["never"])


def env_names(declared: Iterable[str]) -> list[str]:
    """The variable names (or ``PREFIX_*`` patterns) given as ``env:read:NAME``."""
    return [s.strip() for s in path_scopes(declared, "env:read") or [] if s.strip()]


def env_readable(declared: Iterable[str], name: str) -> bool:
    """May a skill with ``declared`` permissions see variable ``name``? The base list
    always; a declared name (``env:read:NAME``) too; a secret-looking name never."""
    if is_secret_name(name):
        return False
    if name in _env_rules()["base"]:
        return True
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in env_names(declared))


def scrubbed_env(env: Mapping[str, str], declared: Iterable[str]) -> dict[str, str]:
    """The part of ``env`` a skill's child process gets (see :func:`env_readable`)."""
    perms = tuple(declared)
    return {k: v for k, v in env.items() if env_readable(perms, k)}


# ---- commands -------------------------------------------------------------------------


def command_refusal(declared: Iterable[str], argv: list[str], kind: str = "shell:exec") -> str | None:
    """Why ``argv`` may not run under ``kind`` (``shell:exec``, ``git:read``), or None.

    The check goes through :mod:`aiagent.agent.permissions.commands`: ``git:read`` allows only
    what it classifies read-only (so not ``git diff --output=F``); ``shell:exec:PREFIX``
    allows commands the prefix covers, and when the prefix is a read-only command, only
    read-only uses of it. Plain ``shell:exec`` allows any command.
    """
    import shlex


    line = commands.parse(shlex.join(argv))
    if not line.analysed or len(line.commands) != 1:
        return f"{shlex.join(argv)!r} cannot be analysed"
    if kind == "git:read":
        return None if commands.is_read_only(line) else "git:read allows only read-only git commands"
    scopes = path_scopes(declared, kind)
    if scopes == []:
        return None
    for prefix in scopes or []:
        if not commands.covers(prefix, line.commands[0]):
            continue
        reads_only = commands.is_read_only(commands.parse(prefix))
        if not reads_only or commands.is_read_only(line):
            return None
    return f"{kind} allows only: {', '.join(scopes or [])}"


def describe(perm: str) -> str:
    text, risk = PERMISSIONS.get(base_permission(perm), ("unknown permission", "high"))
    scope = perm.split(":", 2)[2] if perm.count(":") >= 2 else ""
    return f"{text}{f' (only {scope})' if scope else ''} [{risk} risk]"


# ---- the grant store ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GrantRecord:
    skill: str
    permission: str
    scope: str  # session | project | always
    project: str
    created_at: float
    source: str = ""


class GrantStore(Protocol):
    def granted(self, skill: str, project: str) -> set[str]: ...

    def grant(self, skill: str, permissions: Iterable[str], scope: str, project: str, source: str) -> None: ...

    def revoke(self, skill: str) -> int: ...

    def grants(self, skill: str | None = None) -> list[GrantRecord]: ...


class MemoryGrantStore:
    def __init__(self) -> None:
        self.records: list[GrantRecord] = []

    def granted(self, skill: str, project: str) -> set[str]:
        return {r.permission for r in self.records if r.skill == skill and r.project in ("", project)}

    def grant(self, skill: str, permissions: Iterable[str], scope: str, project: str, source: str) -> None:
        now = time.time()
        for perm in permissions:
            self.records.append(GrantRecord(skill, perm, scope, project if scope == "project" else "", now, source))

    def revoke(self, skill: str) -> int:
        before = len(self.records)
        self.records = [r for r in self.records if r.skill != skill]
        return before - len(self.records)

    def grants(self, skill: str | None = None) -> list[GrantRecord]:
        return [r for r in self.records if skill is None or r.skill == skill]


class SqliteGrantStore:
    """Skill grants in the user's database (:class:`aiagent.infra.store.approvals.ApprovalStore`):
    tool ``skill:NAME``, pattern = the permission, so ``aiagent permissions`` lists and
    revokes them too."""

    def __init__(self, env: Mapping[str, str] | None = None, path: Path | None = None) -> None:

        self.store = ApprovalStore(connect(path, env))

    def granted(self, skill: str, project: str) -> set[str]:
        live = self.store.live((f"skill:{skill}",), project=project, session_id="")
        return {g.pattern for g in live if g.effect == "allow"}

    def grant(self, skill: str, permissions: Iterable[str], scope: str, project: str, source: str) -> None:
        for perm in permissions:
            self.store.add(f"skill:{skill}", perm, "allow", scope, project=project, source=source)  # type: ignore[arg-type]

    def revoke(self, skill: str) -> int:
        mine = [g for g in self.store.list() if g.tool == f"skill:{skill}"]
        for grant in mine:
            self.store.revoke(grant.id)
        return len(mine)

    def grants(self, skill: str | None = None) -> list[GrantRecord]:
        return [
            GrantRecord(g.tool[6:], g.pattern, g.scope, g.project, g.created_at, g.source)
            for g in self.store.list()
            if g.tool.startswith("skill:") and (skill is None or g.tool == f"skill:{skill}")
        ]


def open_grant_store(env: Mapping[str, str] | None = None) -> GrantStore:
    """The SQLite store, or an in-memory one when the database cannot be opened."""
    try:
        return SqliteGrantStore(env)
    except Exception:  # noqa: BLE001 - no usable database: grants last for this run only
        return MemoryGrantStore()


# ---- asking ---------------------------------------------------------------------------

Approver = Callable[[str, list[str]], Awaitable[str]]
"""Ask a person whether skill NAME may have these permissions; answer one of ANSWERS."""


async def deny_all(skill: str, missing: list[str]) -> str:
    return "deny"


@dataclass(slots=True)
class PermissionGate:
    """Decides at activation whether a skill's declared permissions are granted."""

    store: GrantStore
    project: str
    pre_approved: frozenset[str] = frozenset()  # names, or "*" for every skill
    approver: Approver = deny_all
    session: dict[str, set[str]] = field(default_factory=dict)

    def missing(self, skill: str, declared: Iterable[str]) -> list[str]:
        needed = list(dict.fromkeys(declared))
        if not needed or skill in self.pre_approved or "*" in self.pre_approved:
            return []
        have = self.store.granted(skill, self.project) | self.session.get(skill, set())
        return [p for p in needed if p not in have]

    async def ensure(self, skill: str, declared: Iterable[str], approver: Approver | None = None) -> None:
        missing = self.missing(skill, declared)
        if not missing:
            return
        answer = await (approver or self.approver)(skill, missing)
        if answer in ("once", "session"):
            self.session.setdefault(skill, set()).update(missing)
        elif answer in ("project", "always"):
            self.store.grant(skill, missing, answer, self.project, "user")
        else:
            raise PermissionDenied(
                f"skill {skill} needs permission {', '.join(missing)}, which was not granted "
                f"(approve it with --approve-skills {skill} or [skills] auto_approve)"
            )


# ---- rate limits ----------------------------------------------------------------------


@dataclass(slots=True)
class Limits:
    max_llm_calls: int = 5
    max_shell_exec: int = 10
    max_net_fetch: int = 10
    shell_timeout: float = 30.0
    fetch_timeout: float = 30.0
    starlark_budget: float = 10.0  # seconds of Starlark computation per call
    starlark_memory_mb: int = 512
    call_timeout: float = 120.0  # seconds per process-skill call

    @classmethod
    def from_settings(cls, skills: Mapping[str, Any]) -> Limits:

        d = cls()
        return cls(
            max_llm_calls=int(skills.get("max_llm_calls_per_skill", d.max_llm_calls)),
            max_shell_exec=int(skills.get("max_shell_exec_per_skill", d.max_shell_exec)),
            max_net_fetch=int(skills.get("max_net_fetch_per_skill", d.max_net_fetch)),
            shell_timeout=duration(skills.get("skill_shell_timeout"), d.shell_timeout, "skills.skill_shell_timeout"),
            fetch_timeout=duration(skills.get("net_fetch_timeout"), d.fetch_timeout, "skills.net_fetch_timeout"),
            starlark_budget=duration(skills.get("starlark_timeout"), d.starlark_budget, "skills.starlark_timeout"),
            starlark_memory_mb=int(skills.get("starlark_memory_mb", d.starlark_memory_mb)),
            call_timeout=duration(skills.get("call_timeout"), d.call_timeout, "skills.call_timeout"),
        )


RATE_LIMITED = {"llm:call": "max_llm_calls", "shell:exec": "max_shell_exec", "net:fetch": "max_net_fetch"}


@dataclass(slots=True)
class TurnCounter:
    limits: Limits
    counts: dict[tuple[str, str], int] = field(default_factory=dict)

    def reset(self) -> None:
        self.counts.clear()

    def take(self, skill: str, perm: str) -> None:
        attr = RATE_LIMITED.get(perm)
        if attr is None:
            return
        cap = int(getattr(self.limits, attr))
        used = self.counts.get((skill, perm), 0)
        if used >= cap:
            key = attr.replace("_calls", "_calls_per_skill").replace("_exec", "_exec_per_skill").replace("_fetch", "_fetch_per_skill")
            raise PermissionDenied(f"skill {skill} reached its limit of {cap} {perm} uses this turn ([skills] {key})")
        self.counts[(skill, perm)] = used + 1
