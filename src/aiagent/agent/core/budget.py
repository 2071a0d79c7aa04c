"""A spending limit for a run: tokens and dollars, checked before each model request.

:meth:`Budget.check` is asked with the request about to be sent and the usage so far. It
estimates the request's input tokens from its text (system prompt, tools, messages; see
:mod:`aiagent.agent.core.tokens`) and answers why the request would pass a limit, or "".
The loop then ends the run (stop reason ``max_budget``) without sending it.

Only input is estimated: a response's output is unknown until it is written, so a run
may end above a limit by at most one response's output (bounded by the provider's
``max_tokens`` per response). The part of the estimate the last request read from the
provider's cache is priced as a cache read.

Prices come from :mod:`aiagent.infra.config.pricing` (``price(model, usage)`` in
dollars, or None when the model's price is unknown); the model is the request's. The
tokens of ``task`` children (``elsewhere``: (model, usage) of each, counted in the usage
too) are priced at the model each child ran on (at the request's when that one's price
is unknown), as the run's reported cost is.
:func:`run_budget` builds the budget of ``[agent] max_cost`` / ``max_tokens``;
:func:`child_budget` a ``task`` child's share of it (:class:`ChildBudget`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiagent.agent.core.tokens import messages_tokens, text_tokens, tools_tokens
from aiagent.contracts.messages import Usage
from aiagent.contracts.providers import CompletionRequest

Price = Callable[[str, Usage], "float | None"]


def run_budget(max_cost: float, max_tokens: int, model: str) -> Budget | None:
    """The budget of these limits (None when there is none). A cost limit for a model
    whose price is unknown could not be kept: ConfigError (exit 2)."""
    if not max_cost and not max_tokens:
        return None
    from aiagent.infra.config.pricing import cost, price_of
    from aiagent.infra.config.settings import ConfigError

    if max_cost and price_of(model) is None:
        raise ConfigError(f"--max-cost / [agent] max_cost: no price is known for model "
                          f"{model!r}, so the cost cannot be kept; use --max-tokens")
    return Budget(max_cost or None, max_tokens or None, cost, model=model)


def tokens_of(usage: Usage) -> int:
    """The tokens a run is charged for: input (cached or not) and output."""
    return (usage.input_tokens + usage.output_tokens + usage.cache_read_tokens
            + usage.cache_write_tokens)


def request_tokens(request: CompletionRequest) -> int:
    """The estimated input tokens of ``request``."""
    return (text_tokens(request.system) + tools_tokens(request.tools)
            + messages_tokens(request.messages))


@dataclass(slots=True)
class Budget:
    """``max_cost`` dollars and ``max_tokens`` tokens for a run; 0 or None = no limit."""

    max_cost: float | None = None
    max_tokens: int | None = None
    price: Price | None = None
    model: str = ""  # the model of the last request (what is priced)
    #: why the run was stopped (set by :meth:`check` when it stops one)
    reason: str = ""
    _seen: Usage = field(default_factory=Usage)
    _last: Usage = field(default_factory=Usage)
    _elsewhere: list[tuple[str, Usage]] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return bool(self.max_cost) or bool(self.max_tokens)

    def spent(self, usage: Usage, elsewhere: Sequence[tuple[str, Usage]] = ()) -> float | None:
        """Dollars for ``usage``, or None when the price is unknown; the part of it each of
        ``elsewhere`` spent at that one's model."""
        if self.price is None:
            return None
        own, extra = usage, 0.0
        for model, share in elsewhere:
            priced = self.price(model, share)
            if priced is not None:
                own, extra = _minus(own, share, floor=0), extra + priced
        main = self.price(self.model, own)
        return None if main is None else main + extra

    def check(self, request: CompletionRequest, used: Usage,
              elsewhere: Sequence[tuple[str, Usage]] = ()) -> str:
        """Why sending ``request`` after ``used`` would pass a limit ("" when it would not);
        ``elsewhere``: (model, usage) of each task child, part of ``used``."""
        self.model = request.model or self.model
        self._elsewhere = list(elsewhere)
        if used != self._seen:  # what the requests since the last check reported
            last = _minus(used, self._seen)
            self._last = last if min(last.as_dict().values()) >= 0 else used  # a new session
            self._seen = used
        estimate = request_tokens(request)
        reason = self._tokens_reason(estimate, used) or self._cost_reason(estimate, used)
        if reason:
            self.reason = reason
        return reason

    def _tokens_reason(self, estimate: int, used: Usage) -> str:
        if not self.max_tokens:
            return ""
        so_far = tokens_of(used)
        if so_far + estimate <= self.max_tokens:
            return ""
        return (f"token budget reached: {so_far} tokens used, the next request needs about "
                f"{estimate} more (limit {self.max_tokens}; raise it with --max-tokens)")

    def _cost_reason(self, estimate: int, used: Usage) -> str:
        if not self.max_cost:
            return ""
        so_far = self.spent(used, self._elsewhere) or 0.0
        cached = min(self._last.cache_read_tokens, estimate)
        nxt = self.spent(Usage(input_tokens=estimate - cached, cache_read_tokens=cached)) or 0.0
        if so_far + nxt <= self.max_cost:
            return ""
        return (f"cost budget reached: ${so_far:.4f} spent, the next request costs about "
                f"${nxt:.4f} more (limit ${self.max_cost:g}; raise it with --max-cost)")


def child_budget(parent: Any, model: str) -> ChildBudget | None:
    """The run's budget for a ``task`` child of ``parent`` (an Agent) on ``model``; None
    when the run has none."""
    run = parent.budget
    limits = run.inner if isinstance(run, ChildBudget) else run
    if not isinstance(limits, Budget) or not limits.active:
        return None
    return ChildBudget(parent, Budget(limits.max_cost, limits.max_tokens, limits.price, model=model))


class ChildBudget:
    """The run's limits as a ``task`` child sees them: before each of its requests, what the
    rest of the run spent (its parent's tokens, each share at its model, and what was spent
    outside its parent) plus its own. Siblings running side by side count for each other
    once they are done (their tokens join the parent's then)."""

    def __init__(self, parent: Any, inner: Budget) -> None:
        self.parent, self.inner = parent, inner

    @property
    def active(self) -> bool:
        return self.inner.active

    @property
    def reason(self) -> str:
        return self.inner.reason

    def outside(self) -> tuple[Usage, list[tuple[str, Usage]]]:
        """What the run spent outside this child: (usage, (model, usage) of each share)."""
        parent = self.parent
        above = parent.budget.outside() if isinstance(parent.budget, ChildBudget) else (Usage(), [])
        own = parent.usage
        for _, share in parent.usage_elsewhere:
            own = _minus(own, share, floor=0)
        return above[0] + parent.usage, [*above[1], (parent.config.model, own), *parent.usage_elsewhere]

    def check(self, request: CompletionRequest, used: Usage,
              elsewhere: Sequence[tuple[str, Usage]] = ()) -> str:
        """As :meth:`Budget.check`, the run's spending outside this child added; a child on
        a model of unknown price is priced at its parent's (as the run's reported cost)."""
        before, shares = self.outside()
        price = self.inner.price
        if price is not None and price(request.model, Usage(1, 1)) is None:
            request = dataclasses.replace(request, model=self.parent.config.model)
        return self.inner.check(request, before + used, [*shares, *elsewhere])


def _minus(a: Usage, b: Usage, floor: int | None = None) -> Usage:
    values = (a.input_tokens - b.input_tokens, a.output_tokens - b.output_tokens,
              a.cache_read_tokens - b.cache_read_tokens, a.cache_write_tokens - b.cache_write_tokens)
    return Usage(*(v if floor is None else max(floor, v) for v in values))
