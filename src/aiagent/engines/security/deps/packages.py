"""A resolved dependency as read from a lockfile."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Package:
    ecosystem: str  # OSV ecosystem name: PyPI, npm, Go, crates.io, RubyGems, Packagist, ...
    name: str
    version: str
    file: str
    line: int = 0
    spec: str = ""  # a declared range that no lockfile resolved ("^4.17.0"); version is its floor

    @property
    def purl(self) -> str:
        kind = PURL_TYPES.get(self.ecosystem, "generic")
        name = self.name
        if kind == "npm" and name.startswith("@"):
            name = "%40" + name[1:]
        return f"pkg:{kind}/{name}@{self.version}"


PURL_TYPES = {
    "PyPI": "pypi", "npm": "npm", "Go": "golang", "crates.io": "cargo", "RubyGems": "gem",
    "Packagist": "composer", "Maven": "maven", "NuGet": "nuget", "SwiftURL": "swift",
}


def normalize_name(ecosystem: str, name: str) -> str:
    if ecosystem == "PyPI":
        return re.sub(r"[-_.]+", "-", name).lower()
    if ecosystem in {"Packagist", "npm"}:
        return name.lower()
    return name
