"""Budget.check: the estimate of the next request against the limits."""

from __future__ import annotations

import pytest

from aiagent.agent.core.budget import Budget, request_tokens, run_budget
from aiagent.contracts.messages import Message, Usage
from aiagent.contracts.providers import CompletionRequest
from aiagent.infra.config.settings import ConfigError

PRICE = {"input": 3.0, "output": 15.0, "cache_read": 0.3}  # dollars per million


def price(model: str, usage: Usage) -> float:
    return (usage.input_tokens * PRICE["input"] + usage.output_tokens * PRICE["output"]
            + usage.cache_read_tokens * PRICE["cache_read"]) / 1e6


def request(chars: int) -> CompletionRequest:
    return CompletionRequest(model="m", system="", messages=[Message.user("x" * chars)])


def test_tokens_limit_counts_what_was_used_and_the_next_prompt() -> None:
    budget = Budget(max_tokens=1000)
    nxt = request(2000)  # about 500 tokens
    assert 500 <= request_tokens(nxt) < 520
    assert budget.check(nxt, Usage(400, 50)) == ""
    reason = budget.check(nxt, Usage(450, 60, cache_read_tokens=10))
    assert reason.startswith("token budget reached: 520 tokens used") and budget.reason == reason


def test_no_limit_never_stops() -> None:
    budget = Budget(max_cost=None, max_tokens=0, price=price)
    assert not budget.active
    assert budget.check(request(10**6), Usage(10**9, 10**9)) == ""


def test_cost_limit_prices_the_cached_part_as_a_cache_read() -> None:
    nxt = request(400_000)  # about 100k tokens: $0.30 uncached
    budget = Budget(max_cost=0.25, price=price)
    assert budget.check(nxt, Usage()).startswith("cost budget reached: $0.0000 spent")
    cached = Budget(max_cost=0.25, price=price)
    # the last request read 90k tokens from the cache: the next is mostly a cache read
    assert cached.check(nxt, Usage(10_000, 100, cache_read_tokens=90_000)) == ""


def test_an_unknown_price_counts_as_nothing_spent() -> None:
    budget = Budget(max_cost=0.01, price=lambda model, usage: None)
    assert budget.check(request(10**6), Usage(10**6, 0)) == ""


def test_run_budget_from_settings() -> None:
    assert run_budget(0, 0, "claude-sonnet-4-5") is None
    budget = run_budget(0.5, 0, "claude-sonnet-4-5")
    assert budget is not None and budget.spent(Usage(1_000_000, 0)) == pytest.approx(3.0)
    with pytest.raises(ConfigError, match="no price is known for model 'mystery'"):
        run_budget(0.5, 0, "mystery")
    assert run_budget(0, 100, "mystery") is not None  # a token limit needs no price


def test_a_new_session_restarts_the_cache_estimate() -> None:
    budget = Budget(max_cost=10.0, price=price)
    budget.check(request(40), Usage(100, 10, cache_read_tokens=50))
    budget.check(request(40), Usage(20, 1))  # usage counted anew (another session)
    assert min(budget._last.as_dict().values()) >= 0


def test_a_child_s_tokens_are_priced_at_the_child_s_model() -> None:
    """``elsewhere`` (a task child's model and usage, part of the total) is priced at that
    model; the rest at the request's; a child of unknown price at the request's."""
    rates = {"cheap": 1.0, "dear": 20.0}  # dollars per million input tokens

    def priced(model: str, usage: Usage) -> float | None:
        rate = rates.get(model)
        return None if rate is None else usage.input_tokens * rate / 1e6

    child = Usage(100_000, 0)
    total = Usage(10_000, 0) + child
    budget = Budget(max_cost=1.0, price=priced, model="cheap")
    assert budget.spent(total) == pytest.approx(0.11)
    assert budget.spent(total, [("dear", child)]) == pytest.approx(0.01 + 2.0)
    assert budget.spent(total, [("unknown", child)]) == pytest.approx(0.11)
    cheap = CompletionRequest(model="cheap", system="", messages=[Message.user("x" * 40)])
    assert budget.check(cheap, total) == ""  # all at the parent's price: $0.11
    reason = budget.check(cheap, total, [("dear", child)])
    assert reason.startswith("cost budget reached: $2.0100 spent")


def test_a_child_s_budget_counts_what_the_rest_of_the_run_spent() -> None:
    from types import SimpleNamespace

    from aiagent.agent.core.budget import ChildBudget, child_budget

    rates = {"cheap": 1.0, "dear": 20.0}

    def priced(model: str, usage: Usage) -> float | None:
        return usage.input_tokens * rates[model] / 1e6

    run = Budget(max_cost=1.0, price=priced, model="cheap")
    parent = SimpleNamespace(budget=run, usage=Usage(400_000, 0) + Usage(20_000, 0),
                             usage_elsewhere=[("dear", Usage(20_000, 0))],
                             config=SimpleNamespace(model="cheap"))
    child = child_budget(parent, "dear")
    assert isinstance(child, ChildBudget) and child.inner.model == "dear"
    # spent outside: $0.40 (parent, cheap) + $0.40 (a finished sibling, dear)
    assert child.outside()[1] == [("cheap", Usage(400_000, 0)), ("dear", Usage(20_000, 0))]
    ask = CompletionRequest(model="dear", system="", messages=[Message.user("x" * 40)])
    assert child.check(ask, Usage(5_000, 0)) == ""  # + $0.10 of its own
    assert child.check(ask, Usage(15_000, 0)).startswith("cost budget reached: $1.1000 spent")
    assert child.reason and not run.reason
    # a grandchild sees its grandparent's spending too
    mid = SimpleNamespace(budget=child, usage=Usage(15_000, 0), usage_elsewhere=[],
                          config=SimpleNamespace(model="dear"))
    grand = child_budget(mid, "cheap")
    assert grand is not None and grand.outside()[0] == parent.usage + mid.usage
    assert child_budget(SimpleNamespace(budget=None), "dear") is None


def test_a_child_on_a_model_of_unknown_price_is_priced_at_its_parent_s() -> None:
    from types import SimpleNamespace

    from aiagent.agent.core.budget import child_budget

    def priced(model: str, usage: Usage) -> float | None:
        return usage.input_tokens * 10.0 / 1e6 if model == "known" else None

    parent = SimpleNamespace(budget=Budget(max_cost=1.0, price=priced, model="known"),
                             usage=Usage(50_000, 0), usage_elsewhere=[],
                             config=SimpleNamespace(model="known"))
    child = child_budget(parent, "local-llama")
    assert child is not None
    ask = CompletionRequest(model="local-llama", system="", messages=[Message.user("x" * 40)])
    assert child.check(ask, Usage(40_000, 0)) == ""  # $0.90
    assert child.check(ask, Usage(60_000, 0)).startswith("cost budget reached: $1.1000 spent")
