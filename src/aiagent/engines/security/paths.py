"""Where the engine keeps its cache and advisory database (XDG, read at call time)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aiagent" / "security"


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "aiagent"


def default_osv_db() -> Path:
    return data_dir() / "osv.sqlite"
