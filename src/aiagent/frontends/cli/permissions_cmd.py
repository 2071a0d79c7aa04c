"""``aiagent permissions list | allow | deny | revoke | clear | log``."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from aiagent.agent.permissions.policy import parse_rule
from aiagent.infra.config import paths
from aiagent.infra.store import db
from aiagent.infra.store.approvals import ApprovalStore

if TYPE_CHECKING:
    from aiagent.infra.store.approvals import ApprovalStore, Grant


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"aiagent: error: {message}", err=True)
    raise SystemExit(code)


@contextmanager
def _approvals() -> Iterator[ApprovalStore]:

    try:
        conn = db.connect()
    except db.StoreError as exc:
        _fail(str(exc), exc.exit_code)
    try:
        yield ApprovalStore(conn)
    finally:
        conn.close()


def _project() -> str:

    return str(paths.project_root(Path(os.getcwd())))


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _row(g: Grant) -> str:
    where = {"always": "everywhere", "project": g.project, "session": f"session {g.session_id}"}
    revoked = f"  (revoked {_when(g.revoked_at)})" if g.revoked_at else ""
    return f"{g.id:>4}  {g.effect:<5}  {g.label:<32}  {where[g.scope]}  {_when(g.created_at)}{revoked}"


@click.group()
def permissions() -> None:
    """Saved approval answers ("grants"). Deny wins over allow.

    \b
    TOOL is a tool name, or a family: shell (shell commands, matched by normalised
    command prefix) or write (file edits, matched by path scope).
    """


@permissions.command("list")
@click.option("-a", "--all", "show_all", is_flag=True, help="Every project's grants.")
@click.option("--revoked", is_flag=True, help="Include revoked grants.")
def list_(show_all: bool, revoked: bool) -> None:
    """Grants that apply in this project (and everywhere)."""
    with _approvals() as store:
        grants = store.list(project=None if show_all else _project(), include_revoked=revoked)
    grants = [g for g in grants if show_all or g.scope != "session" or revoked]
    if not grants:
        click.echo("no saved grants")
        return
    click.echo(f"{'ID':>4}  {'EFFECT':<5}  {'WHAT':<32}  SCOPE")
    for grant in grants:
        click.echo(_row(grant))


def _add(rule: str, effect: str, project: bool) -> None:

    try:
        parsed = parse_rule(rule, "allow", "argument")
    except ValueError as exc:
        _fail(str(exc))
    with _approvals() as store:
        grant = store.add(parsed.tool, parsed.pattern, effect,  # type: ignore[arg-type]
                          "project" if project else "always", project=_project(), source="cli")
    click.echo(_row(grant))


_SCOPE_HELP = "Only in this project (default: everywhere)."


@permissions.command()
@click.argument("rule", metavar="TOOL[:PREFIX]")
@click.option("--project", is_flag=True, help=_SCOPE_HELP)
def allow(rule: str, project: bool) -> None:
    """Save an allow grant, e.g. 'shell:npm test' or 'write:src/'."""
    _add(rule, "allow", project)


@permissions.command()
@click.argument("rule", metavar="TOOL[:PREFIX]")
@click.option("--project", is_flag=True, help=_SCOPE_HELP)
def deny(rule: str, project: bool) -> None:
    """Save a deny rule, e.g. 'shell:git push'. Deny wins over any allow."""
    _add(rule, "deny", project)


@permissions.command()
@click.argument("grant_ids", nargs=-1, required=True, type=int)
def revoke(grant_ids: tuple[int, ...]) -> None:
    """Revoke grants by id; takes effect at once, also in running sessions."""
    with _approvals() as store:
        for grant_id in grant_ids:
            try:
                grant = store.revoke(grant_id)
            except KeyError:
                _fail(f"no grant {grant_id} (see `aiagent permissions list`)")
            click.echo(f"revoked {grant.id}: {grant.effect} {grant.label}")


@permissions.command()
@click.option("--project", is_flag=True, help="Only this project's grants.")
def clear(project: bool) -> None:
    """Revoke every grant (or this project's)."""
    with _approvals() as store:
        count = store.clear(project=_project() if project else None)
    click.echo(f"revoked {count} grant{'s' if count != 1 else ''}")


@permissions.command()
@click.option("-n", "--limit", default=50, show_default=True, type=click.IntRange(min=1))
def log(limit: int) -> None:
    """The audit log: every grant, denial, use and revocation."""
    with _approvals() as store:
        entries = store.audit_log(limit)
    for e in entries:
        ref = f" #{e.grant_id}" if e.grant_id else ""
        scope = f" [{e.scope}]" if e.scope else ""
        click.echo(f"{_when(e.at)}  {e.action:<10} {e.tool} {e.what!r}{scope}{ref}")
