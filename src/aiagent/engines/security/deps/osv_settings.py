"""Settings of the opt-in online OSV lookup, and where its cache lives.

Kept free of heavy imports: the CLI and the engine import this module on every audit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_OSV_URL = "https://api.osv.dev"
DEFAULT_CACHE_HOURS = 24.0
DEFAULT_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class OsvOnlineSettings:
    """How to reach the OSV API: base URL, cache TTL and a hard time budget."""

    url: str = DEFAULT_OSV_URL
    cache_hours: float = DEFAULT_CACHE_HOURS
    cache_dir: Path | None = None  # None: osv_cache_dir(), read when the lookup runs
    timeout_s: float = DEFAULT_TIMEOUT_S  # the whole online phase, every request included

    def cache_root(self) -> Path:
        return self.cache_dir if self.cache_dir is not None else osv_cache_dir()


def osv_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/aiagent/osv`` (default ``~/.cache/aiagent/osv``)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "aiagent" / "osv"


def resolve_online(flag: bool | None, configured: bool, url: str = DEFAULT_OSV_URL,
                   cache_hours: float = DEFAULT_CACHE_HOURS) -> OsvOnlineSettings | None:
    """``--online``/``--offline`` win over ``[security] osv_online``; None means offline."""
    enabled = configured if flag is None else flag
    return OsvOnlineSettings(url=url, cache_hours=cache_hours) if enabled else None
