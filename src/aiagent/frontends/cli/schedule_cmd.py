"""``aiagent schedule list | add | remove``: scheduled tasks (docs/web.md, "Scheduled tasks").

``aiagent serve`` runs the jobs of its folder and the folders inside it; these commands only
manage the list (the same one the page and the model's ``schedule_task`` tool use).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from aiagent.infra.store import db
from aiagent.infra.store.schedules import ScheduleError, ScheduleStore

if TYPE_CHECKING:
    from aiagent.infra.store.schedules import ScheduleStore


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"aiagent: error: {message}", err=True)
    raise SystemExit(code)


@contextmanager
def _schedules() -> Iterator[ScheduleStore]:

    try:
        store = ScheduleStore.open()
    except db.StoreError as exc:
        _fail(str(exc), exc.exit_code)
    try:
        yield store
    except ScheduleError as exc:
        _fail(str(exc), exc.exit_code)
    finally:
        store.close()


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


@click.group()
def schedule() -> None:
    """Prompts run headless on a cron expression by `aiagent serve` in their folder."""


@schedule.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(as_json: bool) -> None:
    """Every scheduled task with its next and last run."""
    with _schedules() as store:
        jobs = [(job, store.runs(job.id, 1)) for job in store.list()]
    if as_json:
        click.echo(json.dumps([{"id": j.id, "cron": j.cron, "prompt": j.prompt, "folder": j.folder,
                                "next_run": j.next_run, "missed": j.missed,
                                "last_run": ({"status": r[0].status, "session_id": r[0].session_id,
                                              "note": r[0].note} if r else None)}
                               for j, r in jobs], indent=2))
        return
    if not jobs:
        click.echo("No scheduled tasks (add one with `aiagent schedule add CRON PROMPT`).")
    for job, runs in jobs:
        last = f"  last: {runs[0].status} {_when(runs[0].started_at)}" if runs else ""
        prompt = " ".join(job.prompt.split())[:60]
        click.echo(f"{job.id}  {job.cron:<15}  next {_when(job.next_run)}{last}")
        click.echo(f"            {job.folder}  {prompt}")
        if runs and runs[0].status == "failed" and runs[0].note:  # why, in one line
            from aiagent.frontends.terminal_text import neutralise

            reason = " ".join(neutralise(runs[0].note).split())[:200]
            click.echo(f"            why: {reason}")


@schedule.command("add")
@click.argument("cron")
@click.argument("prompt")
@click.option("--folder", type=click.Path(path_type=Path), default=None,
              help="Folder to run in (default: the current one).")
def add_cmd(cron: str, prompt: str, folder: Path | None) -> None:
    """Schedule PROMPT on CRON (five fields, local time), e.g. '17 3 * * *'."""
    where = (folder or Path(os.getcwd())).expanduser()
    where = where if where.is_absolute() else Path(os.getcwd()) / where
    with _schedules() as store:
        job = store.add(cron, prompt, where, created_by="cli")
    click.echo(f"{job.id}  {job.cron}  in {job.folder}; next run {_when(job.next_run)} "
               "(while `aiagent serve` runs there)")


@schedule.command("remove")
@click.argument("job_id")
def remove_cmd(job_id: str) -> None:
    """Remove a scheduled task (its past runs stay as sessions)."""
    with _schedules() as store:
        job = store.remove(job_id)
    click.echo(f"removed {job.id}")
