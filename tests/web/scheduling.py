"""Helpers for the scheduled-task tests: a real ``aiagent serve`` whose scheduler reads
"now" from a file (``AIAGENT_SCHEDULER_CLOCK``), restartable on the same HOME."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.web.serving import AIAGENT, URL, read_line

from aiagent.testing import FakeLLM


@dataclass
class Server:
    proc: subprocess.Popen[str]
    base: str
    token: str

    def client(self, token: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=30,
                            headers={"Authorization": f"Bearer {token or self.token}"})

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Clocked:
    """One project, one HOME, one FakeLLM, a clock file; servers started and stopped."""

    project: Path
    env: dict[str, str]
    clock: Path
    fake: FakeLLM

    def set_time(self, at: float) -> None:
        tmp = self.clock.with_suffix(".tmp")
        tmp.write_text(repr(at))
        tmp.replace(self.clock)

    def now(self) -> float:
        return float(self.clock.read_text())

    def start(self, *flags: str) -> Server:
        """``aiagent serve`` with ``flags`` (default ``--provider anthropic``)."""
        flags = flags or ("--provider", "anthropic")
        proc = subprocess.Popen([AIAGENT, "serve", *flags], cwd=self.project,
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        match = URL.search(read_line(proc, 30))
        if match is None:
            proc.kill()
            raise AssertionError(f"no URL printed: {proc.stderr.read() if proc.stderr else ''}")
        return Server(proc, match[1], match[2])

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([AIAGENT, "schedule", *args], cwd=self.project, env=self.env,
                              capture_output=True, text=True, timeout=60)


def wait_for(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll ``check`` until it returns something truthy (never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def job_of(server: Server, job_id: str) -> dict[str, Any]:
    with server.client() as c:
        jobs = c.get("/api/schedules").json()["schedules"]
    return next(j for j in jobs if j["id"] == job_id)


def finished_runs(server: Server, job_id: str, count: int) -> list[dict[str, Any]] | None:
    runs = [r for r in job_of(server, job_id)["runs"] if r["status"] != "running"]
    return runs if len(runs) >= count else None
