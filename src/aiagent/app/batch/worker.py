"""Worker processes: each runs tasks one after another, so what a job loads once (the
advisory database, the rule packs, the parsers) is loaded once per worker, not per repository.

The driver side (:class:`Worker`) starts ``python -m aiagent.app.batch`` in a process
group of its own, sends it one task a line (JSON on stdin) and reads one result a line. While
a task runs it watches the clock and the memory of the worker's whole process tree; past a
limit, or when the worker dies, the tree is killed, the task gets its one-line failure and
the next task gets a fresh worker.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

DEGRADED = "{}: the model part stopped, the static results are kept"
POLL = 0.2  # seconds between two looks at a running task's clock and memory
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    seconds: float = 1800.0  # per task; 0: none
    memory_mb: int = 4096  # per task, the worker's whole process tree (RSS); 0: none


def one_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def failed(task: dict[str, Any], reason: str, seconds: float = 0.0, peak: int = 0) -> dict[str, Any]:
    return {"key": task["key"], "name": task["name"], "job": task["job"],
            "source": task["spec"]["source"], "status": "failed", "reason": one_line(reason),
            "findings": {}, "outputs": [], "notes": [], "cost": 0.0,
            "seconds": round(seconds, 3), "peak_rss_mb": round(peak / MB, 1)}


class Worker:
    """One worker process, started on first use and again after it was killed."""

    def __init__(self, limits: Limits, log: Path | None = None,
                 argv: list[str] | None = None, coordinator: Any = None) -> None:
        self.limits, self.log = limits, log
        self.coordinator = coordinator  # the batch's model-call limit (coordinator.py), if any
        self.argv = argv or [sys.executable, "-m", "aiagent.app.batch"]
        self.proc: subprocess.Popen[bytes] | None = None
        self.tag = ""
        self._buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        from aiagent.infra.process.runner import new_tag
        from aiagent.infra.process.tree import TAG_VARIABLE

        self.tag = new_tag()
        env = {**os.environ, TAG_VARIABLE: self.tag, "PYTHONUNBUFFERED": "1"}
        err: IO[bytes] | int = subprocess.DEVNULL
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            err = self.log.open("ab")
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, env=env, start_new_session=True)
        finally:
            if not isinstance(err, int):
                err.close()
        self._buffer = b""
        return self.proc

    def run(self, task: dict[str, Any]) -> dict[str, Any]:
        """The task's result; a limit reached or a dead worker is a failed result."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        started = time.monotonic()
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(task).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            self.kill()
            return failed(task, "the worker process could not be reached", time.monotonic() - started)
        result = self._wait(task, proc, started)
        if self.coordinator is not None:  # slots of a killed task back; its cost, even if killed
            self.coordinator.release_all(task["key"])
            result["cost"] = round(self.coordinator.cost_of(task["key"]), 6)
        return result

    def _line(self, task: dict[str, Any], proc: subprocess.Popen[bytes]) -> dict[str, Any] | None:
        """The task's result when a whole line of it came; a model-call request is answered."""
        while b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
            message: dict[str, Any] = json.loads(line)
            if "rpc" not in message:
                return message
            self._answer(task, proc, message)
        return None

    def _answer(self, task: dict[str, Any], proc: subprocess.Popen[bytes],
                message: dict[str, Any]) -> None:
        """A worker's request to the coordinator, for its current task (never another's)."""
        method, args = message.get("rpc"), message.get("args") or []
        try:
            if self.coordinator is None or method not in ("try_acquire", "release"):
                raise ValueError(f"no such request: {method}")
            answer = {"ok": getattr(self.coordinator, method)(task["key"], *args[:1])}
        except Exception as exc:  # a bad request or an unreachable actor: the call fails
            answer = {"error": one_line(f"{type(exc).__name__}: {exc}")}
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.write(json.dumps(answer).encode() + b"\n")
            proc.stdin.flush()

    def _wait(self, task: dict[str, Any], proc: subprocess.Popen[bytes],
              started: float) -> dict[str, Any]:
        assert proc.stdout is not None
        fd, peak, limits = proc.stdout.fileno(), 0, self.limits
        while True:
            ready, _, _ = select.select([fd], [], [], POLL)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    self._buffer += chunk
                    result = self._line(task, proc)
                    if result is not None:
                        result["peak_rss_mb"] = round(max(peak, tree_rss(proc.pid)) / MB, 1)
                        return result
                    continue
            elapsed = time.monotonic() - started
            rss = tree_rss(proc.pid)
            peak = max(peak, rss)
            reason = ""
            if ready or proc.poll() is not None:
                code = proc.wait()
                reason = f"the worker process died ({_describe(code)})"
            elif limits.memory_mb and rss > limits.memory_mb * MB:
                reason = f"memory limit reached ({rss // MB} MB > {limits.memory_mb} MB); killed"
            elif limits.seconds and elapsed > limits.seconds:
                reason = f"time limit reached ({limits.seconds:g}s); killed"
            if reason:
                self.kill()
                return failed(task, reason, elapsed, peak)

    def kill(self) -> None:
        """End the worker and every process it started (its group and tagged ones)."""
        import asyncio

        from aiagent.infra.process.tree import kill_tree

        proc, self.proc = self.proc, None
        if proc is None:
            return
        pid = proc.pid if proc.poll() is None else None
        asyncio.run(kill_tree(pid, self.tag, grace=0.5))
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def close(self) -> None:
        self.kill()


def _describe(code: int) -> str:
    if code < 0:
        import signal

        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


def tree_rss(pid: int) -> int:
    """The resident memory of ``pid`` and all its descendants, in bytes."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            total += proc.memory_info().rss
    return total


# ---- the worker process -------------------------------------------------------------------


def execute(task: dict[str, Any]) -> dict[str, Any]:
    """Run one task here: check out the repository, run the job, move its reports into
    place (a task killed half-way leaves only a ``.partial`` folder, replaced next time)."""
    from aiagent.app.batch.jobs import HISTORY_JOBS, JOBS
    from aiagent.app.batch.llm import ModelUse
    from aiagent.app.batch.repos import RepoSpec
    from aiagent.app.batch.workspace import TaskFailure, checkout

    started = time.monotonic()
    spec, name, job = RepoSpec.from_dict(task["spec"]), task["name"], task["job"]
    final = Path(task["out"]) / name
    partial, work = final.with_name(f".{name}.partial"), Path(task["work"]) / name
    result = failed(task, "")
    try:
        for folder in (partial, work):
            shutil.rmtree(folder, ignore_errors=True)
        root = checkout(spec, work, history=job in HISTORY_JOBS)
        model = ModelUse.for_task(task)
        outcome = JOBS[job](root, partial, spec, model)
        shutil.rmtree(final, ignore_errors=True)
        partial.mkdir(parents=True, exist_ok=True)
        partial.rename(final)
        result.update(status="done", reason=DEGRADED.format(model.refused) if model and model.refused else "",
                      findings=outcome.findings, outputs=list(outcome.outputs), cost=outcome.cost,
                      notes=list(outcome.notes), model_calls=model.calls if model else 0)
    except TaskFailure as exc:
        result["reason"] = one_line(str(exc))
    except Exception as exc:  # a bug or a hostile input: this task fails, the batch goes on
        traceback.print_exc()
        result["reason"] = one_line(f"internal error: {type(exc).__name__}: {exc}")
    finally:
        for folder in (partial, work):
            shutil.rmtree(folder, ignore_errors=True)
    if result["status"] == "failed":
        shutil.rmtree(final, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - started, 3)
    return result


def main() -> None:
    """The worker's loop: a task a line on stdin, a result a line on the original stdout
    (the jobs' own prints go to stderr, the worker's log)."""
    _exit_with_parent()
    from aiagent.app.batch import llm

    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    llm.GATE = llm.PipeGate(results, sys.stdin)  # model-call requests share the pipes
    while line := sys.stdin.readline():
        if line.strip():
            result = json.dumps(execute(json.loads(line)))
            with llm.GATE.lock:
                results.write(result + "\n")
                results.flush()



def _exit_with_parent() -> None:
    """A worker whose driver was killed (SIGKILL, a lost machine) ends too, even in the middle
    of a task that hangs: the task was in flight, and a re-run does it again."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
