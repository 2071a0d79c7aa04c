"""The worker supervision: a task past its time or memory limit, or a worker that dies, is
one failed task (the worker's process tree killed) and the next task gets a fresh worker."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import psutil

from aiagent.app.batch.worker import Limits, Worker

# A stand-in worker speaking the same protocol: the task's "job" says what to do.
FAKE = textwrap.dedent("""
    import json, subprocess, sys, time
    for line in sys.stdin:
        task = json.loads(line)
        if task["job"] == "hang":
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
            print(child.pid, file=open(task["out"], "w"), flush=True)
            time.sleep(600)
        if task["job"] == "hog":
            hog = bytearray(300 * 1024 * 1024)
            time.sleep(600)
        if task["job"] == "die":
            sys.exit(9)
        print(json.dumps({"key": task["key"], "name": task["name"], "status": "done"}), flush=True)
""")


def _task(job: str, out: str = "") -> dict[str, object]:
    return {"key": job, "name": job, "job": job, "spec": {"source": f"/{job}"}, "out": out}


def _worker(tmp_path: Path, limits: Limits) -> Worker:
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE)
    return Worker(limits, tmp_path / "worker.log", argv=[sys.executable, str(script)])


def test_a_hanging_task_is_killed_with_its_children(tmp_path: Path) -> None:
    worker = _worker(tmp_path, Limits(seconds=2, memory_mb=0))
    marker = tmp_path / "child.pid"
    began = time.monotonic()
    result = worker.run(_task("hang", str(marker)))
    assert result["status"] == "failed"
    assert result["reason"] == "time limit reached (2s); killed"
    assert time.monotonic() - began < 10
    child = int(marker.read_text())
    assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE
    assert worker.run(_task("ok"))["status"] == "done"  # a fresh worker takes the next task
    worker.close()


def test_a_task_over_its_memory_limit_is_killed(tmp_path: Path) -> None:
    worker = _worker(tmp_path, Limits(seconds=60, memory_mb=150))
    result = worker.run(_task("hog"))
    assert result["status"] == "failed"
    assert result["reason"].startswith("memory limit reached (") and "> 150 MB); killed" in result["reason"]
    assert result["peak_rss_mb"] > 150
    worker.close()


def test_a_worker_that_dies_fails_its_task_only(tmp_path: Path) -> None:
    worker = _worker(tmp_path, Limits(seconds=60, memory_mb=0))
    assert worker.run(_task("die"))["reason"] == "the worker process died (exit 9)"
    result = worker.run(_task("ok"))
    assert result["status"] == "done" and json.dumps(result)
    worker.close()
