"""Background jobs: commands that keep running while the agent carries on.

A job has a small integer id, the PID of its process group leader and a log file with
everything it printed. ``job_output`` returns what is new since the previous read. Jobs
are killed when the run ends unless the user keeps them.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from aiagent.contracts.tools import ToolError
from aiagent.infra.process.runner import Limits, Outcome, Running


@dataclass
class Job:
    id: int
    command: str
    running: Running
    started_wall: float = field(default_factory=time.time)
    read_pos: int = 0
    outcome: Outcome | None = None
    killed: bool = False
    watcher: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.running.pid

    @property
    def log_path(self) -> str:
        return str(self.running.capture.log_path or "")

    @property
    def status(self) -> str:
        if self.killed:
            return "killed"
        if self.outcome is None:
            return "running"
        return f"exited ({self.outcome.exit_code})"

    def runtime(self) -> str:
        end = time.time() if self.outcome is None else self.started_wall + self.outcome.duration
        return f"{end - self.started_wall:.1f}s"


class JobManager:
    def __init__(self) -> None:
        self.jobs: dict[int, Job] = {}
        self._next = 1

    def adopt(self, running: Running, command: str, grace: float = 1.0) -> Job:
        """Take over a running command (its output keeps going to its log)."""
        running.on_output = None
        job = Job(self._next, command, running)
        self._next += 1
        running.refresh()
        job.read_pos = running.capture.total
        job.watcher = asyncio.ensure_future(self._watch(job, grace))
        self.jobs[job.id] = job
        return job

    async def _watch(self, job: Job, grace: float) -> None:
        job.outcome = await job.running.supervise(Limits(kill_grace=grace))

    def get(self, job_id: int) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            known = ", ".join(str(j) for j in self.jobs) or "none"
            raise ToolError(f"unknown job id {job_id} (known jobs: {known}); job_list shows them")
        return job

    async def kill(self, job_id: int, grace: float = 1.0) -> Job:
        job = self.get(job_id)
        if job.outcome is None:
            job.killed = True
            await job.running.kill(grace)
            if job.watcher is not None:
                await asyncio.wait({job.watcher}, timeout=grace + 3)
        return job

    def kept(self) -> bool:
        return any(j.outcome is None and j.running.detached for j in self.jobs.values())

    async def close_all(self, keep: bool) -> None:
        for job in list(self.jobs.values()):
            # Only jobs writing straight to their log can outlive us; the others read
            # through our pipes and would die with the agent anyway.
            if keep and job.outcome is None and job.running.detached:
                job.running.kept = True
                if job.watcher is not None:
                    job.watcher.cancel()
                continue
            await self.kill(job.id, grace=0.5)

    def table(self) -> str:
        if not self.jobs:
            return "No background jobs."
        rows = [f"{'ID':<4}{'PID':<9}{'STATUS':<14}{'RUNTIME':<10}COMMAND"]
        for job in self.jobs.values():
            rows.append(f"{job.id:<4}{job.pid:<9}{job.status:<14}{job.runtime():<10}{job.command}")
        return "\n".join(rows)
