"""Where aiagent keeps things, honouring the XDG base directories."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def _xdg(env: Mapping[str, str], var: str, fallback: str) -> Path:
    value = env.get(var, "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / fallback


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/aiagent`` (default ``~/.config/aiagent``)."""
    return _xdg(os.environ if env is None else env, "XDG_CONFIG_HOME", ".config") / "aiagent"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/aiagent`` (default ``~/.local/share/aiagent``)."""
    return _xdg(os.environ if env is None else env, "XDG_DATA_HOME", ".local/share") / "aiagent"


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/aiagent`` (default ``~/.cache/aiagent``): safe to delete."""
    return _xdg(os.environ if env is None else env, "XDG_CACHE_HOME", ".cache") / "aiagent"


def user_config_file(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / "config.toml"


def project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding ``.git`` or ``.agent``; else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / ".agent").is_dir():
            return folder
    return start


def project_config_file(start: Path) -> Path:
    return project_root(start) / ".agent" / "config.toml"
