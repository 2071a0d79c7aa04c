"""One limit on model calls for the whole batch, whatever the number of workers.

A :class:`Coordinator` holds the batch's model-call slots (``--llm-concurrency``), its pace
(``--llm-rate`` calls a minute) and its budget (``--max-cost``). There is one per batch: on
the ``local`` engine an object in the driver, which each :class:`~.worker.Worker` consults
for its worker process (over the worker's own pipes, see :mod:`.llm`); on the ``ray`` engine
a named Ray actor created by the driver, which the Ray tasks consult the same way. Asking
never blocks: :meth:`Coordinator.try_acquire` answers at once (granted, or wait this long,
or no: the budget is spent), so a worker that waits holds nothing up. A worker killed with
calls in flight gives its slots back through :meth:`Coordinator.release_all`.

Ray tasks also say here when they begin (:meth:`Coordinator.began`), so the driver can bound
a Ray task that hangs by the time it has really been running (:meth:`Coordinator.overdue`).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

BUDGET_REACHED = "budget reached"


@dataclass(frozen=True, slots=True)
class LlmLimits:
    concurrency: int = 4  # model calls in flight across the batch
    rate: float = 0.0  # model calls a minute across the batch; 0: no pace
    max_cost: float | None = None  # US dollars; None: no budget


class Coordinator:
    """The batch's model-call slots, pace and budget (thread-safe; also the Ray actor's body)."""

    def __init__(self, limits: LlmLimits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()  # slots in use, by task key
        self._cost: dict[str, float] = {}  # dollars spent, by task key
        self._next_start = 0.0  # monotonic time before which no call may start (the pace)
        self._began: dict[str, float] = {}
        self.calls = self.refused = self.peak = 0

    def try_acquire(self, key: str) -> tuple[bool, float, str]:
        """``(True, 0, "")``: a call of task ``key`` may start now (release it after);
        ``(False, seconds, "")``: ask again after about that long; ``(False, 0, reason)``:
        no more calls (the budget is spent)."""
        with self._lock:
            limit = self.limits.max_cost
            if limit is not None and self._spent() >= limit:
                self.refused += 1
                return False, 0.0, BUDGET_REACHED
            if sum(self._held.values()) >= max(1, self.limits.concurrency):
                return False, 0.05, ""
            now = time.monotonic()
            if self.limits.rate > 0 and now < self._next_start:
                return False, self._next_start - now, ""
            if self.limits.rate > 0:
                self._next_start = max(now, self._next_start) + 60.0 / self.limits.rate
            self._held[key] += 1
            self.calls += 1
            self.peak = max(self.peak, sum(self._held.values()))
            return True, 0.0, ""

    def release(self, key: str, cost: float) -> None:
        """A call of task ``key`` ended, having cost ``cost`` dollars."""
        with self._lock:
            if self._held[key] > 0:
                self._held[key] -= 1
            self._cost[key] = self._cost.get(key, 0.0) + max(0.0, float(cost))

    def release_all(self, key: str) -> None:
        """Task ``key`` ended (perhaps killed with calls in flight): its slots are free."""
        with self._lock:
            self._held.pop(key, None)

    def spent(self) -> float:
        with self._lock:
            return self._spent()

    def _spent(self) -> float:
        return sum(self._cost.values())

    def cost_of(self, key: str) -> float:
        with self._lock:
            return self._cost.get(key, 0.0)

    def began(self, key: str) -> None:
        with self._lock:
            self._began[key] = time.monotonic()

    def overdue(self, keys: list[str], seconds: float) -> list[str]:
        """Those of ``keys`` that began more than ``seconds`` ago (by this process's clock)."""
        with self._lock:
            now = time.monotonic()
            return [k for k in keys if k in self._began and now - self._began[k] > seconds]

    def totals(self) -> dict[str, Any]:
        with self._lock:
            return {"calls": self.calls, "cost": round(self._spent(), 6), "peak_in_flight": self.peak,
                    "refused": self.refused, "concurrency": self.limits.concurrency,
                    "rate_per_minute": self.limits.rate, "max_cost": self.limits.max_cost}


class RemoteCoordinator:
    """The same interface on a Ray actor handle (each call waits for the actor's answer)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def __getattr__(self, name: str) -> Any:
        import ray  # type: ignore[import-not-found,unused-ignore]  # only on the ray engine

        method = getattr(self.actor, name)
        return lambda *args: ray.get(method.remote(*args))


def ray_actor(ray: Any, limits: LlmLimits, name: str) -> Any:
    """The batch's coordinator as a named Ray actor (many concurrent callers, one state)."""
    actor_class = ray.remote(num_cpus=0, max_concurrency=64)(Coordinator)
    return actor_class.options(name=name, lifetime=None).remote(limits)
