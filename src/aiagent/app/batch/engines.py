"""Where the tasks run: ``local`` (worker processes on this machine) or ``ray`` (Ray tasks on
an existing cluster or a local one). Both run each task through :class:`Worker` (the same
limits, the same code), so the same input gives the same results."""

from __future__ import annotations

import os
import queue
import threading
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.app.batch.worker import Limits, Worker, failed

if TYPE_CHECKING:
    from aiagent.app.batch.coordinator import LlmLimits

Result = dict[str, Any]
OnStart = Callable[[dict[str, Any]], None]
OnResult = Callable[[Result], None]
RAY_EXTRA = "the ray engine needs Ray: pip install 'aiagent[ray]'"


class EngineError(RuntimeError):
    """An engine that cannot start (Ray missing, cluster unreachable)."""


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def run_local(tasks: list[dict[str, Any]], limits: Limits, workers: int, logs: Path,
              on_start: OnStart, on_result: OnResult, coordinator: Any = None) -> None:
    """A pool of ``workers`` worker processes sized to the machine (0: one per core), their
    model calls under ``coordinator`` (one object in this process for all of them)."""
    todo: queue.Queue[dict[str, Any]] = queue.Queue()
    for task in tasks:
        todo.put(task)
    count = min(workers or default_workers(), len(tasks))
    stop = threading.Event()
    errors: list[BaseException] = []
    pool = [Worker(limits, logs / f"worker-{n}.log", coordinator=coordinator) for n in range(count)]

    def serve(worker: Worker) -> None:
        try:
            while not stop.is_set():
                try:
                    task = todo.get_nowait()
                except queue.Empty:
                    return
                on_start(task)
                result = worker.run(task)
                if not stop.is_set():
                    on_result(result)
        except BaseException as exc:  # a bug in the driver: stop the batch, say so
            errors.append(exc)
            stop.set()
        finally:
            worker.close()

    threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in pool]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)
    finally:  # Ctrl-C: the running tasks are lost (not recorded), their workers killed
        stop.set()
        for worker in pool:
            worker.close()
    if errors:
        raise errors[0]


# ---- Ray ----------------------------------------------------------------------------------

_RAY_WORKER: Worker | None = None
HUNG_MARGIN = (5.0, 60.0)  # a Ray task gets this much past its time limit (10%, within these)


def _ray_task(task: dict[str, Any], limits: tuple[float, int], log: str, actor: Any,
              body: Callable[..., Result] | None = None) -> Result:
    """One task inside a Ray worker process, through this process's own :class:`Worker`
    (kept between tasks: the worker loads its data once). It tells the batch's coordinator
    actor when it begins, so the driver can bound it by the time it really ran."""
    from aiagent.app.batch.coordinator import RemoteCoordinator

    coordinator = RemoteCoordinator(actor)
    coordinator.began(task["key"])
    if body is not None:  # tests: a task that hangs in the Ray worker itself
        return body(task)
    global _RAY_WORKER
    if _RAY_WORKER is None:
        _RAY_WORKER = Worker(Limits(*limits), Path(log) / f"ray-worker-{os.getpid()}.log")
    _RAY_WORKER.coordinator = coordinator if task.get("llm") else None
    return _RAY_WORKER.run(task)


def hung_after(limits: Limits) -> float:
    """Seconds after it began at which the driver cancels a Ray task (0: never)."""
    if not limits.seconds:
        return 0.0
    low, high = HUNG_MARGIN
    return limits.seconds + min(high, max(low, limits.seconds * 0.1))


def import_ray() -> Any:
    try:
        import ray  # type: ignore[import-not-found,unused-ignore]  # the aiagent[ray] extra
    except ImportError:
        raise EngineError(RAY_EXTRA) from None
    return ray


def run_ray(tasks: list[dict[str, Any]], limits: Limits, workers: int, logs: Path,
            on_start: OnStart, on_result: OnResult, address: str | None = None,
            llm: LlmLimits | None = None, body: Callable[..., Result] | None = None) -> dict[str, Any]:
    """Ray tasks, one per repository, each asking for one CPU and the task's memory; the
    model calls of all under one coordinator actor. The coordinator's totals."""
    from aiagent.app.batch.coordinator import LlmLimits, ray_actor

    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        _init_ray(ray, address, workers)
    try:
        actor = ray_actor(ray, llm or LlmLimits(), f"aiagent-batch-{uuid.uuid4().hex[:12]}")
        remote = ray.remote(_ray_task).options(
            num_cpus=1, max_retries=0, memory=limits.memory_mb * 1024 * 1024 or None)
        pending = {}
        for task in tasks:
            on_start(task)
            ref = remote.remote(task, (limits.seconds, limits.memory_mb), str(logs), actor, body)
            pending[ref] = task
        _collect(ray, pending, on_result, actor, hung_after(limits))
        return dict(ray.get(actor.totals.remote()))
    finally:
        if started_here:
            ray.shutdown()


def _init_ray(ray: Any, address: str | None, workers: int) -> None:
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                               "configure_logging": False}
    if address:
        options["address"] = address
    else:
        options["num_cpus"] = workers or default_workers()
    try:
        ray.init(**options)
    except Exception as exc:  # ConnectionError, RuntimeError: one line, no traceback
        raise EngineError(f"cannot start or reach Ray ({address or 'local'}): "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None


def _collect(ray: Any, pending: dict[Any, dict[str, Any]], on_result: OnResult, actor: Any,
             hung: float) -> None:
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
        for ref in done:
            task = pending.pop(ref)
            try:
                result = ray.get(ref)
            except Exception as exc:  # the Ray worker died: this task fails, the rest go on
                result = failed(task, f"ray: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            on_result(result)
        if hung and pending:
            _cancel_hung(ray, pending, on_result, actor, hung)


def _cancel_hung(ray: Any, pending: dict[Any, dict[str, Any]], on_result: OnResult, actor: Any,
                 hung: float) -> None:
    """Cancel (force: the Ray worker is killed) each task that began more than ``hung``
    seconds ago and still has no result: its own time limit did not end it."""
    by_key = {task["key"]: ref for ref, task in pending.items()}
    for key in ray.get(actor.overdue.remote(list(by_key), hung)):
        ref = by_key[key]
        task = pending.pop(ref)
        ray.cancel(ref, force=True)
        ray.get(actor.release_all.remote(key))
        result = failed(task, f"ray task hung: no result {hung:g}s after it began; cancelled", hung)
        result["cost"] = round(ray.get(actor.cost_of.remote(key)), 6)
        on_result(result)


def engines() -> Iterable[str]:
    return ("local", "ray")
