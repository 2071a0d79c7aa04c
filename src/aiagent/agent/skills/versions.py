"""SemVer versions and the ranges skills use for dependencies and compatibility.

A range is one or more comparisons joined by commas or spaces (``>=1.0.0, <2``), or a
caret (``^1.2``), tilde (``~1.2.3``), wildcard (``1.x``, ``*``) or exact version.
"""

from __future__ import annotations

import re

import semver

_COMPARISON = re.compile(r"^(>=|<=|==|!=|>|<|=)?\s*v?(\d+(?:\.\d+){0,2})(?:[-+].*)?$")


class VersionError(ValueError):
    """A version or range that cannot be read."""


def parse_version(text: str) -> semver.Version:
    try:
        return semver.Version.parse(str(text).strip().removeprefix("v"))
    except (ValueError, TypeError):
        raise VersionError(f"{text!r} is not a SemVer version (like 1.2.0)") from None


def _pad(numbers: str) -> tuple[semver.Version, int]:
    parts = [int(p) for p in numbers.split(".")]
    given = len(parts)
    parts += [0] * (3 - given)
    return semver.Version(*parts), given


def _expand(term: str) -> list[tuple[str, semver.Version]]:
    """One range term as a list of (operator, version) comparisons."""
    term = term.strip()
    if term in ("*", "x", "X", ""):
        return []
    if term[0] in "^~":
        low, given = _pad(term[1:].strip().removeprefix("v"))
        if term[0] == "^":
            high = (low.bump_major() if low.major else low.bump_minor() if low.minor or given < 3
                    else low.bump_patch())
        else:
            high = low.bump_major() if given == 1 else low.bump_minor()
        return [(">=", low), ("<", high)]
    wild = re.fullmatch(r"v?(\d+)(?:\.(\d+))?\.[xX*]|v?(\d+)\.[xX*](?:\.[xX*])?", term)
    if wild:
        major = int(wild.group(1) or wild.group(3))
        if wild.group(2) is not None:
            low = semver.Version(major, int(wild.group(2)), 0)
            return [(">=", low), ("<", low.bump_minor())]
        low = semver.Version(major, 0, 0)
        return [(">=", low), ("<", low.bump_major())]
    m = _COMPARISON.match(term)
    if not m:
        raise VersionError(f"{term!r} is not a version range (like >=1.0.0, ^1.2, ~1.2.3)")
    op = m.group(1) or "=="
    version, given = _pad(m.group(2))
    if op in ("=", "==") and given < 3:
        high = version.bump_major() if given == 1 else version.bump_minor()
        return [(">=", version), ("<", high)]
    return [("==" if op == "=" else op, version)]


def parse_range(text: str) -> list[tuple[str, semver.Version]]:
    terms = [t for t in re.split(r"\s*,\s*|\s+(?=[<>=!^~])", str(text).strip()) if t]
    out: list[tuple[str, semver.Version]] = []
    for term in terms or ["*"]:
        out.extend(_expand(term))
    return out


def satisfies(version: str, spec: str | None) -> bool:
    """True when ``version`` is inside the range ``spec`` (no spec: any version)."""
    if not spec:
        return True
    v = parse_version(version)
    checks = {
        ">=": v.__ge__, "<=": v.__le__, ">": v.__gt__, "<": v.__lt__,
        "==": v.__eq__, "!=": v.__ne__,
    }
    return all(checks[op](bound) for op, bound in parse_range(spec))
