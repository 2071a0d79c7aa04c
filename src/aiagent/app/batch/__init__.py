"""``aiagent batch JOB --repos FILE --out DIR``: one job over many repositories.

Each repository is one task, run by a worker process (:mod:`.worker`) on the ``local``
engine or in a Ray task (:mod:`.engines`), with the same engine entry points as the
single-repository command (:mod:`.jobs`). Outcomes go to the state file ``DIR/state.sqlite``
as they arrive, so a re-run skips what is done (``force`` runs everything again) and an
interrupted batch loses at most the tasks that were running. Reports go under
``DIR/repos/<name>/``; ``DIR/summary.json`` and ``DIR/summary.md`` cover the whole batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.app.batch.coordinator import BUDGET_REACHED, Coordinator, LlmLimits
from aiagent.app.batch.engines import EngineError, run_local, run_ray
from aiagent.app.batch.jobs import JOBS
from aiagent.app.batch.repos import ReposFileError, RepoSpec, read_repos
from aiagent.app.batch.state import BatchState, StateError
from aiagent.app.batch.worker import Limits

__all__ = ["BUDGET_REACHED", "JOBS", "BatchError", "BatchModel", "BatchRequest", "Limits",
           "LlmLimits", "run_batch"]


class BatchError(RuntimeError):
    """A batch that cannot start: bad repositories file, unusable folder, engine missing."""


@dataclass(frozen=True, slots=True)
class BatchRequest:
    job: str
    repos: Path
    out: Path
    engine: str = "local"
    ray_address: str | None = None
    workers: int = 0  # 0: one per core (local), the cluster's CPUs (ray)
    limits: Limits = Limits()
    force: bool = False
    work: Path | None = None  # where clones go (default: DIR/.work)
    llm: BatchModel | None = None  # --llm: the model the front-end resolved, and the limits


@dataclass(frozen=True, slots=True)
class BatchModel:
    """The model of a batch: chosen once by the front-end (``Application.resolve()``), the
    same for every repository, and the batch's one limit on its calls."""

    provider: str
    model: str
    limits: LlmLimits = LlmLimits()


def run_batch(req: BatchRequest, progress: Callable[[int], Any] | None = None) -> dict[str, Any]:
    """Run the batch; the summary (also written to DIR). ``progress(total)`` gives an
    object with ``result(result)`` and ``close()`` (the CLI's is :mod:`aiagent.frontends.cli.batch_progress`)."""
    if req.job not in JOBS:
        raise BatchError(f"unknown job {req.job!r} (known: {', '.join(JOBS)})")
    try:
        specs = read_repos(req.repos)
        req.out.mkdir(parents=True, exist_ok=True)
        state = BatchState(req.out / "state.sqlite")
    except (ReposFileError, StateError) as exc:
        raise BatchError(str(exc)) from None
    except OSError as exc:
        raise BatchError(f"{req.out}: cannot create ({exc.strerror})") from None
    try:
        return _run(req, specs, state, progress)
    finally:
        state.close()


def _run(req: BatchRequest, specs: list[RepoSpec], state: BatchState,
         progress: Callable[[int], Any] | None) -> dict[str, Any]:
    from aiagent.app.batch import summary

    began = time.monotonic()
    tasks = [_task(req, spec) for spec in specs]
    earlier = {} if req.force else _outcomes(state.finished(req.job))
    todo = [t for t in tasks if t["key"] not in earlier]
    results = {k: v for k, v in earlier.items() if k in {t["key"] for t in tasks}}
    lock = threading.Lock()
    shown = progress(len(todo)) if progress is not None else None

    def on_start(task: dict[str, Any]) -> None:
        with lock:
            state.started(task["key"], req.job, task["name"])

    def on_result(result: dict[str, Any]) -> None:
        with lock:
            result["attempts"] = state.attempts(result["key"])
            state.record(result["key"], result)
            results[result["key"]] = result
            if shown is not None:
                shown.result(result)

    try:
        llm = _engine(req, todo, on_start, on_result)
    finally:
        if shown is not None:
            shown.close()
    built = summary.build(req.job, req.engine, list(results.values()), time.monotonic() - began,
                          len(tasks) - len(todo), llm)
    summary.write(req.out, built)
    return built


def _engine(req: BatchRequest, todo: list[dict[str, Any]], on_start: Any,
            on_result: Any) -> dict[str, Any] | None:
    """Run the tasks; the model calls' totals (calls, cost, peak in flight) with ``--llm``."""
    if not todo:
        return None
    logs = req.out / "logs"
    limits = req.llm.limits if req.llm is not None else None
    try:
        if req.engine == "ray":
            totals = run_ray(todo, req.limits, req.workers, logs, on_start, on_result,
                             req.ray_address, limits)
            return totals if limits is not None else None
        if req.engine == "local":
            coordinator = Coordinator(limits) if limits is not None else None
            run_local(todo, req.limits, req.workers, logs, on_start, on_result, coordinator)
            return coordinator.totals() if coordinator is not None else None
        raise BatchError(f"unknown engine {req.engine!r} (known: local, ray)")
    except EngineError as exc:
        raise BatchError(str(exc)) from None


def _outcomes(finished: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The earlier results a re-run keeps: not those cut short by the budget (run again)."""
    return {k: v for k, v in finished.items() if not str(v.get("reason", "")).startswith(BUDGET_REACHED)}


def _task(req: BatchRequest, spec: RepoSpec) -> dict[str, Any]:
    # with a model the task is another task: a static result is no answer to --llm
    model = f":llm={req.llm.provider}/{req.llm.model}" if req.llm is not None else ""
    return {"key": f"{req.job}:{spec.digest}{model}", "job": req.job, "name": spec.name,
            "spec": spec.as_dict(), "out": str((req.out / "repos").resolve()),
            "work": str((req.work or req.out / ".work").resolve()),
            **({"llm": {"provider": req.llm.provider, "model": req.llm.model}} if req.llm else {})}
