"""Which models accept images: ``[provider.X] vision`` when set, else the longest name
prefix in ``vision.toml`` (a model it does not know is taken not to)."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources


@cache
def known_models() -> dict[str, bool]:
    text = resources.files("aiagent.infra.providers").joinpath("vision.toml").read_text("utf-8")
    return {str(k): bool(v) for k, v in tomllib.loads(text).items()}


def accepts_images(model: str, configured: bool | None = None) -> bool:
    if configured is not None:
        return configured
    table = known_models()
    name = model.rsplit("/", 1)[-1]  # "openrouter/openai/gpt-4o" style names
    matches = [p for p in table if name.startswith(p) or model.startswith(p)]
    return table[max(matches, key=len)] if matches else False
