"""Cost estimates from token usage, with prices kept in ``pricing.toml`` beside this module."""

from __future__ import annotations

import tomllib
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


def known_models() -> list[str]:
    return sorted(_prices())
