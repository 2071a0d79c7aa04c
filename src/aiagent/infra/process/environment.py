"""Which environment variables are credentials (``environment.toml``), so that processes
started for the model or for a skill can be given an environment without them."""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources


@cache
def secret_patterns() -> tuple[str, ...]:
    text = resources.files("aiagent.infra.process").joinpath("environment.toml").read_text("utf-8")
    return tuple(tomllib.loads(text)["secrets"])


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, p) for p in secret_patterns())


def without_secrets(env: Mapping[str, str], keep: Iterable[str] = ()) -> dict[str, str]:
    """``env`` less every credential-like variable, except the names in ``keep``."""
    kept = set(keep)
    return {k: v for k, v in env.items() if k in kept or not is_secret_name(k)}
