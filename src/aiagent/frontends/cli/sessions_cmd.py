"""``aiagent sessions list | show | export | delete | fork | compact``."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aiagent.frontends.cli.sessions_export import compact_session, to_json, to_markdown
from aiagent.infra.store.db import StoreError
from aiagent.infra.store.sessions import SessionNotFound, SessionStore

if TYPE_CHECKING:
    from aiagent.infra.config.settings import Settings
    from aiagent.infra.store.sessions import SessionInfo, SessionStore


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"aiagent: error: {message}", err=True)
    raise SystemExit(code)


@contextmanager
def _store() -> Iterator[SessionStore]:

    try:
        store = SessionStore.open()
    except StoreError as exc:
        _fail(str(exc), exc.exit_code)
    try:
        yield store
    finally:
        store.close()


def _get(store: SessionStore, session_id: str) -> SessionInfo:

    try:
        return store.get(session_id)
    except SessionNotFound as exc:
        _fail(str(exc))
        raise  # not reached


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def format_list(sessions: list[SessionInfo], show_workspace: bool) -> str:
    if not sessions:
        return "no sessions\n"
    lines = [f"{'ID':<12}  {'UPDATED':<16}  {'MSGS':>4}  TITLE"]
    for s in sessions:
        where = f"  [{s.workspace}]" if show_workspace else ""
        lines.append(f"{s.id:<12}  {_when(s.updated_at):<16}  {s.message_count:>4}  {s.title}{where}")
    return "\n".join(lines) + "\n"


def resume_hint(settings: Settings) -> str:
    """For ``--resume`` without an id when no picker can be shown."""

    store = SessionStore.open(settings.env)
    try:
        recent = store.list(settings.workspace, limit=10)
    finally:
        store.close()
    if not recent:
        return f"--resume: no saved sessions in {settings.workspace}"
    listing = format_list(recent, False).rstrip("\n").replace("\n", "\n  ")
    return f"--resume needs a session id here; recent sessions:\n  {listing}"


@click.group()
def sessions() -> None:
    """Saved conversations. IDs may be shortened to any unique prefix."""


@sessions.command("list")
@click.option("-a", "--all", "show_all", is_flag=True, help="Sessions of every folder.")
@click.option("-n", "--limit", default=30, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(show_all: bool, limit: int, as_json: bool) -> None:
    """Sessions started in this folder, newest first."""
    with _store() as store:
        found = store.list(None if show_all else Path(os.getcwd()).resolve(), limit=limit)
    if as_json:
        click.echo(json.dumps([_info(s) for s in found], ensure_ascii=False, indent=2))
    else:
        click.echo(format_list(found, show_all), nl=False)


@sessions.command()
@click.argument("session_id")
def show(session_id: str) -> None:
    """Print a session as Markdown."""

    with _store() as store:
        info = _get(store, session_id)
        text = to_markdown(info, store.message_rows(info.id))
        text += subagents_md(info, store.children(info.id))
    click.echo(text, nl=False)


def subagents_md(info: SessionInfo, children: list[SessionInfo]) -> str:
    """Where a subagent's session comes from, and a session's subagents (each is a session
    of its own: ``aiagent sessions show ID``)."""
    lines = []
    if info.agent:
        lines += ["", f"*The conversation of subagent {info.agent}, started in session "
                      f"`{info.parent_id}`.*"]
    if children:
        lines += ["", "## Subagents", ""]
        lines += [f"- `{c.id}` {c.title} ({c.message_count} messages)" for c in children]
    return "\n".join(lines) + "\n" if lines else ""


@sessions.command()
@click.argument("session_id")
@click.option("--format", "fmt", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file.")
def export(session_id: str, fmt: str, output: str | None) -> None:
    """Export a session (Markdown or JSON). Secret values from the environment are masked."""

    with _store() as store:
        info = _get(store, session_id)
        rows = store.message_rows(info.id)
        text = to_markdown(info, rows) if fmt == "md" else to_json(info, rows)
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(f"{output}: {exc.strerror}", 1)
        click.echo(f"exported session {info.id} to {output}", err=True)
    else:
        click.echo(text, nl=False)


@sessions.command()
@click.argument("session_id")
def delete(session_id: str) -> None:
    """Delete a session, its messages and its files."""
    with _store() as store:
        info = _get(store, session_id)
        store.delete(info.id)
    click.echo(f"deleted session {info.id}")


@sessions.command()
@click.argument("session_id")
def fork(session_id: str) -> None:
    """Copy a session; continue the copy with --resume NEW_ID."""
    with _store() as store:
        info = _get(store, session_id)
        new = store.fork(info.id)
    click.echo(new.id)


@sessions.command()
@click.argument("session_id")
def compact(session_id: str) -> None:
    """Summarise a session's older turns now (uses the configured provider)."""

    with _store() as store:
        info = _get(store, session_id)
    click.echo(compact_session(info.id), nl=False)


def _info(s: SessionInfo) -> dict[str, Any]:
    return {
        "id": s.id, "title": s.title, "workspace": s.workspace, "provider": s.provider,
        "model": s.model, "parent_id": s.parent_id, "agent": s.agent, "messages": s.message_count,
        "created_at": s.created_at, "updated_at": s.updated_at,
    }
