"""Per-ecosystem version ordering (PEP 440, npm/Cargo SemVer, Go, RubyGems, Packagist,
Maven, NuGet) through `univers`; an unparsable version compares as unknown (None)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ECOSYSTEM_CLASSES = {
    "PyPI": "PypiVersion", "npm": "SemverVersion", "crates.io": "SemverVersion",
    "Go": "GolangVersion", "RubyGems": "RubygemsVersion", "Packagist": "ComposerVersion",
    "Maven": "MavenVersion", "NuGet": "NugetVersion", "SwiftURL": "SemverVersion",
}


@lru_cache(maxsize=4096)
def parse_version(ecosystem: str, version: str) -> Any:
    from univers import versions

    cls_name = ECOSYSTEM_CLASSES.get(ecosystem.split(":", 1)[0])
    if cls_name is None:
        return None
    if ecosystem == "Go" and not version.startswith("v"):
        version = "v" + version
    try:
        return getattr(versions, cls_name)(version)
    except Exception:  # univers raises several types for bad input
        return None
