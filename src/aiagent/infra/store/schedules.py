"""Scheduled tasks: a prompt to run headless in a folder on a cron expression.

Kept in the user's database (migration ``003_schedules``) beside the sessions they produce;
``aiagent serve`` runs the ones due (see :mod:`aiagent.frontends.web.scheduler`), ``aiagent
schedule`` and the page manage them. Cron expressions are read by ``cronsim`` (five fields,
the machine's local time zone), never parsed here. Every check happens before anything is
written: a bad expression, a missing folder or an empty prompt leaves the store unchanged.
"""

from __future__ import annotations

import builtins
import sqlite3
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from aiagent.infra.store import db

PROMPT_LIMIT = 20_000
MISSED_COUNT_LIMIT = 10_000  # missed runs are counted up to this, then "more than"
CREATORS = ("cli", "page", "tool")


class ScheduleError(Exception):
    """Bad input or an unknown job; one line for the user (exit 2, HTTP 400/404)."""

    exit_code = 2
    status = 400


class ScheduleNotFound(ScheduleError):
    status = 404


@dataclass(frozen=True, slots=True)
class Schedule:
    id: str
    cron: str
    prompt: str
    folder: str
    created_by: str
    created_at: float
    next_run: float
    missed: int = 0
    missed_note: str = ""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Schedule:
        return cls(row["id"], row["cron"], row["prompt"], row["folder"], row["created_by"],
                   row["created_at"], row["next_run"], row["missed"], row["missed_note"])


@dataclass(frozen=True, slots=True)
class Run:
    id: int
    schedule_id: str
    session_id: str
    due_at: float
    started_at: float
    finished_at: float | None
    status: str
    note: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Run:
        return cls(row["id"], row["schedule_id"], row["session_id"], row["due_at"],
                   row["started_at"], row["finished_at"], row["status"], row["note"])


# ---- cron --------------------------------------------------------------------------------


def check_cron(expr: str) -> str:
    """The expression, whitespace normalised; ScheduleError when cronsim refuses it."""
    from cronsim import CronSim, CronSimError

    text = " ".join(str(expr).split())
    if len(text.split(" ")) != 5:
        raise ScheduleError(f"cron {expr!r}: needs five fields (minute hour day month weekday)")
    try:
        next(CronSim(text, datetime.now().astimezone()))
    except CronSimError as exc:
        raise ScheduleError(f"cron {expr!r}: {exc}") from None
    except StopIteration:
        raise ScheduleError(f"cron {expr!r}: never matches a date") from None
    return text


def next_after(expr: str, after: float) -> float:
    """The first time the expression matches strictly after ``after`` (epoch seconds)."""
    from cronsim import CronSim

    start = datetime.fromtimestamp(after).astimezone()
    return next(CronSim(expr, start)).timestamp()


def count_due(expr: str, first: float, until: float) -> int:
    """How many times the expression matches in ``[first, until]`` (``first`` is a match),
    counted up to :data:`MISSED_COUNT_LIMIT`."""
    count, at = 0, first
    while at <= until and count < MISSED_COUNT_LIMIT:
        count += 1
        at = next_after(expr, at)
    return count


def check_folder(folder: str | Path) -> str:
    path = Path(str(folder)).expanduser()
    if not path.is_absolute():
        raise ScheduleError(f"folder {str(folder)!r}: give an absolute path")
    if not path.is_dir():
        raise ScheduleError(f"folder {str(folder)!r}: no such folder")
    return str(path.resolve())


def check_prompt(prompt: str) -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise ScheduleError("prompt: must not be empty")
    if len(prompt) > PROMPT_LIMIT:
        raise ScheduleError(f"prompt: longer than {PROMPT_LIMIT} characters")
    return prompt


# ---- the store ---------------------------------------------------------------------------


class ScheduleStore:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @classmethod
    def open(cls, env: Mapping[str, str] | None = None, path: Path | None = None) -> ScheduleStore:
        return cls(db.connect(path or db.db_path(env)))

    def close(self) -> None:
        self.conn.close()

    def add(self, cron: str, prompt: str, folder: str | Path, *, created_by: str,
            now: float | None = None) -> Schedule:
        """A new job, due first at the expression's next match after ``now``."""
        cron, prompt, where = check_cron(cron), check_prompt(prompt), check_folder(folder)
        if created_by not in CREATORS:
            raise ScheduleError(f"created_by: one of {', '.join(CREATORS)}")
        stamp = db.now() if now is None else now
        job_id = uuid.uuid4().hex[:10]
        self.conn.execute(
            "INSERT INTO schedules (id, cron, prompt, folder, created_by, created_at, next_run)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (job_id, cron, prompt, where, created_by, stamp, next_after(cron, stamp)))
        return self.get(job_id)

    def get(self, job_id: str) -> Schedule:
        key = str(job_id).strip()
        row = self.conn.execute("SELECT * FROM schedules WHERE id = ?", (key,)).fetchone() \
            if key.isalnum() else None
        if row is None:
            raise ScheduleNotFound(f"no scheduled task {job_id!r} (see `aiagent schedule list`)")
        return Schedule.from_row(row)

    def list(self, under: str | Path | None = None) -> list[Schedule]:
        """Every job, or those whose folder is ``under`` or inside it."""
        rows = self.conn.execute("SELECT * FROM schedules ORDER BY created_at, id").fetchall()
        jobs = [Schedule.from_row(r) for r in rows]
        if under is None:
            return jobs
        root = Path(under).resolve()
        return [j for j in jobs if Path(j.folder).is_relative_to(root)]

    def remove(self, job_id: str) -> Schedule:
        job = self.get(job_id)
        self.conn.execute("DELETE FROM schedules WHERE id = ?", (job.id,))
        return job

    def claim(self, job: Schedule, next_run: float) -> bool:
        """Move ``job`` to its next time, if no one else (another server) did it first."""
        cur = self.conn.execute("UPDATE schedules SET next_run = ? WHERE id = ? AND next_run = ?",
                                (next_run, job.id, job.next_run))
        return cur.rowcount == 1

    def skip_missed(self, job: Schedule, count: int, now: float) -> bool:
        """Runs that fell while nothing ran them: counted, reported, not replayed."""
        capped = "more than " if count >= MISSED_COUNT_LIMIT else ""
        note = (f"{capped}{count} run(s) missed while no server was running "
                f"(first due {_stamp(job.next_run)}); not replayed")
        if not self.claim(job, next_after(job.cron, now)):
            return False
        self.conn.execute("UPDATE schedules SET missed = missed + ?, missed_note = ? WHERE id = ?",
                          (count, note, job.id))
        self.conn.execute(
            "INSERT INTO schedule_runs (schedule_id, due_at, started_at, finished_at, status, note)"
            " VALUES (?, ?, ?, ?, 'missed', ?)", (job.id, job.next_run, now, now, note))
        return True

    def start_run(self, job: Schedule, due: float, now: float) -> int:
        cur = self.conn.execute(
            "INSERT INTO schedule_runs (schedule_id, due_at, started_at, status)"
            " VALUES (?, ?, ?, 'running')", (job.id, due, now))
        return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int, status: str, *, note: str = "", session_id: str = "",
                   now: float | None = None) -> None:
        self.conn.execute(
            "UPDATE schedule_runs SET status = ?, note = ?, session_id = ?, finished_at = ?"
            " WHERE id = ?", (status, note[:2000], session_id, db.now() if now is None else now,
                              run_id))

    def runs(self, job_id: str, limit: int = 20) -> builtins.list[Run]:
        rows = self.conn.execute(
            "SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY id DESC LIMIT ?",
            (job_id, limit)).fetchall()
        return [Run.from_row(r) for r in rows]

    def fail_interrupted(self, job_ids: builtins.list[str], note: str) -> None:
        """These jobs' runs left ``running`` by a server that stopped mid-run end as failed."""
        for job_id in job_ids:
            self.conn.execute("UPDATE schedule_runs SET status = 'failed', note = ?,"
                              " finished_at = ? WHERE schedule_id = ? AND status = 'running'",
                              (note, db.now(), job_id))


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at).astimezone().strftime("%Y-%m-%d %H:%M %Z")
