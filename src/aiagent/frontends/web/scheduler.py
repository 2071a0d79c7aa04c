"""The server's scheduler: runs the scheduled tasks of its folder (and the folders inside it)
when their cron expression comes due.

- Each run is an ordinary headless run in the job's folder: settings loaded for that folder
  (its trust, its config), ``Application(settings, interactive=False)`` with no
  ``--approve``, every approval request answered "deny". A scheduled run never gets more
  permissions than ``aiagent --headless -p`` in that folder.
- A run is stored as a session titled after its job, and recorded in ``schedule_runs``.
- No overlap: a job whose previous run is still going skips that time (recorded).
- Times that fell while no server was running are counted and reported once, never
  replayed in bulk; the job goes on from the next time due.
- "Now" comes from ``clock`` (tests inject one); the loop looks every ``tick`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.contracts.events import ApprovalRequestEvent, DoneEvent, ErrorEvent
from aiagent.infra.config.flags import flags_layer
from aiagent.infra.config.settings import Settings
from aiagent.infra.store.schedules import count_due, next_after
from aiagent.infra.store.sessions import title_of

if TYPE_CHECKING:
    from aiagent.infra.store.schedules import Schedule, ScheduleStore

DEFAULT_TICK = 5.0
TITLE_PREFIX = "Scheduled"


def file_clock(path: str) -> Callable[[], float]:
    """A clock read from a file holding epoch seconds (tests move time by writing it)."""
    def now() -> float:
        try:
            return float(Path(path).read_text().strip())
        except (OSError, ValueError):
            return time.time()
    return now


def run_title(job: Schedule) -> str:

    return f"{TITLE_PREFIX} {job.id}: {title_of(job.prompt)}"


class Scheduler:
    def __init__(self, store: ScheduleStore, workspace: Path, flags: Mapping[str, Any], *,
                 clock: Callable[[], float] = time.time, tick: float = DEFAULT_TICK) -> None:
        self.store, self.workspace, self.flags = store, workspace, dict(flags)
        self.clock, self.tick = clock, tick
        self.running: dict[str, asyncio.Task[None]] = {}
        self._loop: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Settle what happened while no server ran (at once, before the API answers),
        then look for due jobs every ``tick`` seconds."""
        mine = [j.id for j in self.store.list(self.workspace)]
        self.store.fail_interrupted(mine, "the server stopped during this run")
        self.catch_up()
        self._loop = asyncio.ensure_future(self._forever())

    async def close(self) -> None:
        tasks = [t for t in (self._loop, *self.running.values()) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _forever(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            try:
                self.check()
            except Exception as exc:  # noqa: BLE001 - a broken row must not stop the loop
                import sys

                sys.stderr.write(f"aiagent serve: scheduler: {exc}\n")

    def catch_up(self) -> None:
        """Jobs due before this server started: report the missed times, run none of them."""

        now = self.clock()
        for job in self.store.list(self.workspace):
            if job.next_run <= now:
                self.store.skip_missed(job, count_due(job.cron, job.next_run, now), now)

    def check(self) -> None:
        """Start every job that is due; skip (and record) a time while its last run goes on."""

        now = self.clock()
        for job in self.store.list(self.workspace):
            if job.next_run > now:
                continue
            if not self.store.claim(job, next_after(job.cron, now)):
                continue  # another server took it
            if job.id in self.running and not self.running[job.id].done():
                run_id = self.store.start_run(job, job.next_run, now)
                self.store.finish_run(run_id, "missed", note="skipped: the previous run was "
                                      "still going", now=now)
                continue
            self.running[job.id] = asyncio.ensure_future(self.run(job, job.next_run))

    async def run(self, job: Schedule, due: float) -> None:
        run_id = self.store.start_run(job, due, self.clock())
        status, note, session_id = "failed", "", ""
        try:
            status, note, session_id = await self._headless(job)
        except asyncio.CancelledError:
            note = "the server stopped during this run"
            raise
        except Exception as exc:  # noqa: BLE001 - recorded as a failed run; the server stays up
            note = str(exc) or type(exc).__name__
        finally:
            self.store.finish_run(run_id, status, note=note, session_id=session_id,
                                  now=self.clock())

    async def _headless(self, job: Schedule) -> tuple[str, str, str]:

        folder = Path(job.folder)
        if not folder.is_dir():
            return "failed", f"folder {job.folder} no longer exists", ""
        settings = Settings.load(folder, flags_layer(self.flags))
        started = Application(settings, interactive=False).start(SessionRequest(),
                                                                 title=run_title(job))
        session_id, errors, done = started.session.info.id, [], None
        try:
            async for event in started.agent.run(job.prompt):
                if isinstance(event, ApprovalRequestEvent):
                    event.answer("deny")  # nobody is there to approve
                elif isinstance(event, ErrorEvent):
                    errors.append(event.message)
                elif isinstance(event, DoneEvent):
                    done = event
        finally:
            await started.aclose()
        if done is not None and done.exit_code == 0:
            return "completed", done.stop_reason, session_id
        reason = done.stop_reason if done is not None else "no result"
        return "failed", "; ".join([reason, *errors]), session_id
