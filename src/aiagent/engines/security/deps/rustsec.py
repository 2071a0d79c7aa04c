"""RustSec advisories (``crates/NAME/RUSTSEC-….md``: TOML front matter, Markdown body) as
OSV records, so a RustSec advisory-db checkout can feed the snapshot or `db import`.

The ``patched`` and ``unaffected`` requirement lists (Cargo syntax) describe the safe
versions; the affected ranges are their complement, written as OSV ECOSYSTEM events.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any

from univers.versions import SemverVersion

FRONT = re.compile(r"\A\s*```toml\s*\n(.*?)\n```\s*\n?(.*)\Z", re.S)
COMPARATOR = re.compile(r"^\s*(>=|<=|>|<|=|\^|~)?\s*v?([0-9][0-9A-Za-z.+-]*)\s*$")


@dataclass(frozen=True, slots=True)
class Bound:
    version: Any  # a univers version of one ecosystem (SemverVersion, RubygemsVersion…)
    inclusive: bool


@dataclass(frozen=True, slots=True)
class Interval:
    lo: Bound | None  # None: from the first version
    hi: Bound | None  # None: without end


def is_rustsec(text: str) -> bool:
    return text.lstrip().startswith("```toml") and "[advisory]" in text[:400]


def to_osv(text: str, source: str = "") -> dict[str, Any] | None:
    """The OSV record of one advisory file; None for an informational one without ranges."""
    m = FRONT.match(text)
    if m is None:
        raise ValueError(f"{source}: no ```toml front matter")
    meta = tomllib.loads(m.group(1))
    adv, versions = meta.get("advisory") or {}, meta.get("versions") or {}
    safe = [_interval(r) for r in [*versions.get("patched", []), *versions.get("unaffected", [])]]
    events = events_from_safe([i for i in safe if i is not None])
    if not events:
        return None
    title = next((line[2:].strip() for line in m.group(2).splitlines() if line.startswith("# ")), "")
    record: dict[str, Any] = {
        "id": adv["id"], "modified": f"{adv.get('date', '')}T00:00:00Z",
        "aliases": list(adv.get("aliases") or []), "summary": title,
        "affected": [{"package": {"ecosystem": "crates.io", "name": adv["package"]},
                      "ranges": [{"type": "SEMVER", "events": events}]}],
    }
    if adv.get("cvss"):
        record["severity"] = [{"type": "CVSS_V3", "score": adv["cvss"]}]
    if adv.get("withdrawn"):
        record["withdrawn"] = str(adv["withdrawn"])
    return record


def _interval(requirement: str) -> Interval | None:
    lo: Bound | None = None
    hi: Bound | None = None
    for part in requirement.split(","):
        m = COMPARATOR.match(part)
        if m is None:
            return None
        op, version = m.group(1) or "^", _semver(m.group(2))
        if op in {">=", ">"}:
            lo = Bound(version, op == ">=")
        elif op in {"<", "<="}:
            hi = Bound(version, op == "<=")
        elif op == "=":
            lo, hi = Bound(version, True), Bound(version, True)
        else:  # ^ and ~: from the version up to the next breaking one
            lo, hi = Bound(version, True), Bound(_next(version, op), False)
    return Interval(lo, hi)


def _semver(text: str) -> SemverVersion:
    core, dash, pre = text.split("+", 1)[0].partition("-")
    parts = (core.split(".") + ["0", "0"])[:3]
    return SemverVersion(".".join(parts) + (dash + pre if pre else ""))


def _next(v: SemverVersion, op: str) -> SemverVersion:
    """The first version a Cargo caret (the default) or tilde requirement excludes."""
    major, minor, patch = v.value.major, v.value.minor, v.value.patch
    if op == "~":
        return SemverVersion(f"{major}.{minor + 1}.0")
    if major:
        return SemverVersion(f"{major + 1}.0.0")
    return SemverVersion(f"0.{minor + 1}.0" if minor else f"0.0.{patch + 1}")


def events_from_safe(safe: list[Interval]) -> list[dict[str, str]]:
    """The complement of the safe intervals, as introduced/fixed/last_affected events."""
    safe = sorted(safe, key=lambda i: (i.lo is not None, i.lo.version if i.lo else 0))
    events: list[dict[str, str]] = []
    cursor: Bound | None = None  # where the affected stretch starts; None: at 0
    open_from_zero = True
    for interval in safe:
        if interval.lo is not None and (cursor is not None or open_from_zero):
            start = "0" if cursor is None else str(cursor.version)
            if cursor is None or _before(cursor, interval.lo):
                events.append({"introduced": start})
                key = "fixed" if interval.lo.inclusive else "last_affected"
                events.append({key: str(interval.lo.version)})
        open_from_zero = False
        if interval.hi is None:
            return events
        if cursor is None or interval.hi.version >= cursor.version:
            cursor = Bound(interval.hi.version, not interval.hi.inclusive)
    events.append({"introduced": "0" if cursor is None else str(cursor.version)})
    return events


def _before(start: Bound, lo: Bound) -> bool:
    return start.version < lo.version or (start.version == lo.version and start.inclusive
                                          and not lo.inclusive)
