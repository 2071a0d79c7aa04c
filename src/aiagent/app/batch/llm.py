"""Model calls inside a batch worker process, under the batch's one limit.

The driver chose the provider and model once (``Application.resolve()`` in the front-end)
and each task carries that choice, so a repository's own settings never pick the model the
user pays for. A job asks :meth:`ModelUse.app` for an :class:`~aiagent.app.Application`
whose providers are wrapped in :class:`LimitedProvider`: before each call it asks the
batch's coordinator for a slot (:mod:`.coordinator`), after it it reports what the call cost
(from the usage the provider reported and the price table). The coordinator is reached over
the worker's own pipes (:class:`PipeGate`): a request a line on the results stream, the
answer a line on stdin; the driver side is :meth:`~.worker.Worker._answer`.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import IO, TYPE_CHECKING, Any

from aiagent.app import Application
from aiagent.app.provider import ProviderChoice
from aiagent.contracts.messages import Usage
from aiagent.contracts.providers import ProviderError, UsageReport
from aiagent.infra.config.pricing import cost

if TYPE_CHECKING:
    from aiagent.contracts.providers import CompletionRequest, Provider, StreamEvent
    from aiagent.infra.config.settings import Settings

WHY = "chosen for the batch"
MAX_POLL = 1.0  # seconds between two asks for a slot, at most


class BudgetReached(ProviderError):
    """The batch's ``--max-cost`` is spent: no new model call starts."""


class PipeGate:
    """The worker process's side of the coordinator (one request at a time)."""

    def __init__(self, out: IO[str], inp: IO[str]) -> None:
        self.out, self.inp = out, inp
        self.lock = threading.Lock()

    def call(self, method: str, *args: Any) -> Any:
        with self.lock:
            self.out.write(json.dumps({"rpc": method, "args": list(args)}) + "\n")
            self.out.flush()
            line = self.inp.readline()
        if not line:
            raise ProviderError("the batch driver is gone")
        answer = json.loads(line)
        if "error" in answer:
            raise ProviderError(f"batch coordinator: {answer['error']}")
        return answer["ok"]


GATE: PipeGate | None = None  # set by the worker process's main loop


class ModelUse:
    """One task's use of the model: the driver's choice, the gate, and what it cost."""

    def __init__(self, provider: str, model: str, gate: PipeGate) -> None:
        self.choice = ProviderChoice(provider, model, WHY, WHY)
        self.model, self.gate = model, gate
        self.refused = ""  # why a call was refused (the budget), once one was
        self.cost = 0.0
        self.calls = 0

    @classmethod
    def for_task(cls, task: dict[str, Any]) -> ModelUse | None:
        wanted = task.get("llm")
        if not wanted:
            return None
        if GATE is None:
            raise ProviderError("no batch coordinator in this process")
        return cls(wanted["provider"], wanted["model"], GATE)

    def app(self, settings: Settings) -> Application:
        """The one set-up path, on the batch's choice, with limited providers."""
        return _GatedApplication(settings, self)

    def price(self, usage: Usage) -> float | None:
        return cost(self.model, usage)


class _GatedApplication(Application):
    def __init__(self, settings: Settings, use: ModelUse) -> None:
        super().__init__(settings, interactive=False, choice=use.choice)
        self._use = use

    def provider(self) -> Provider:
        return LimitedProvider(super().provider(), self._use)


class LimitedProvider:
    """A provider whose every call takes a slot of the batch and reports its cost."""

    def __init__(self, inner: Provider, use: ModelUse) -> None:
        self.inner, self.use = inner, use
        self.name = inner.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def stream(self, req: CompletionRequest) -> AsyncIterator[StreamEvent]:
        await self._acquire()
        used = Usage()
        try:
            async for event in self.inner.stream(req):
                if isinstance(event, UsageReport):
                    used = used + event.usage
                yield event
        finally:
            spent = self.use.price(used) or 0.0
            self.use.cost += spent
            self.use.calls += 1
            self.use.gate.call("release", spent)  # quick: the driver answers at once

    async def _acquire(self) -> None:
        while True:
            granted, wait, reason = await asyncio.to_thread(self.use.gate.call, "try_acquire")
            if granted:
                return
            if reason:
                self.use.refused = reason
                raise BudgetReached(reason)
            await asyncio.sleep(min(max(wait, 0.01), MAX_POLL))

    async def aclose(self) -> None:
        await self.inner.aclose()
