"""Cost estimates from token usage, with prices kept in ``pricing.toml`` (the front-ends'
status lines, /cost, a task child's cost in the headless JSON)."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from aiagent.contracts.messages import Usage


@cache
def _prices() -> dict[str, dict[str, float]]:
    text = resources.files("aiagent.infra.config").joinpath("pricing.toml").read_text("utf-8")
    data: dict[str, Any] = tomllib.loads(text)
    return {str(k): {kk: float(vv) for kk, vv in v.items()} for k, v in data["models"].items()}


def price_of(model: str) -> dict[str, float] | None:
    name = model.lower().split("/")[-1]
    best = max((p for p in _prices() if name.startswith(p)), key=len, default=None)
    return _prices()[best] if best else None


def cost(model: str, usage: Usage) -> float | None:
    """Dollars for ``usage`` on ``model``, or None when the model's price is unknown."""
    price = price_of(model)
    if price is None:
        return None
    per = 1_000_000
    return (
        usage.input_tokens * price.get("input", 0.0)
        + usage.output_tokens * price.get("output", 0.0)
        + usage.cache_read_tokens * price.get("cache_read", price.get("input", 0.0))
        + usage.cache_write_tokens * price.get("cache_write", price.get("input", 0.0))
    ) / per


def run_cost(model: str, total: Usage, elsewhere: Sequence[tuple[str, Usage]] = ()) -> float | None:
    """Dollars for a run's ``total`` on ``model`` of which ``elsewhere`` ((model, usage) of
    each ``task`` child, counted in ``total`` too) ran on other models: each child at its own
    model's price when known, else at ``model``'s; the rest at ``model``'s. None when
    ``model``'s price is unknown."""
    own = total
    extra = 0.0
    for child_model, usage in elsewhere:
        priced = cost(child_model, usage)
        if priced is not None:
            own = _minus(own, usage)
            extra += priced
    main = cost(model, own)
    return None if main is None else main + extra


def _minus(a: Usage, b: Usage) -> Usage:
    return Usage(max(0, a.input_tokens - b.input_tokens), max(0, a.output_tokens - b.output_tokens),
                 max(0, a.cache_read_tokens - b.cache_read_tokens),
                 max(0, a.cache_write_tokens - b.cache_write_tokens))


def known_models() -> list[str]:
    return sorted(_prices())
