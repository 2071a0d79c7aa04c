"""Does an OSV record affect a package version? (`versions` lists and SEMVER/ECOSYSTEM
ranges with introduced / fixed / last_affected / limit events.)"""

from __future__ import annotations

from typing import Any

from aiagent.engines.security.deps.packages import Package, normalize_name
from aiagent.engines.security.deps.versions import parse_version


def affected_entries(record: dict[str, Any], pkg: Package) -> list[dict[str, Any]]:
    want = normalize_name(pkg.ecosystem, pkg.name)
    out = []
    for entry in record.get("affected") or []:
        info = entry.get("package") or {}
        eco = str(info.get("ecosystem", "")).split(":", 1)[0]
        if eco == pkg.ecosystem and normalize_name(eco, str(info.get("name", ""))) == want:
            out.append(entry)
    return out


def is_affected(record: dict[str, Any], pkg: Package) -> bool:
    for entry in affected_entries(record, pkg):
        if pkg.version in (entry.get("versions") or []):
            return True
        version = parse_version(pkg.ecosystem, pkg.version)
        if version is None:
            continue
        for rng in entry.get("ranges") or []:
            if rng.get("type") in {"SEMVER", "ECOSYSTEM"} and _in_range(pkg.ecosystem, version, rng):
                return True
    return False


def _in_range(ecosystem: str, version: Any, rng: dict[str, Any]) -> bool:
    """Apply, in version order, every event at or below ``version``; the last one decides."""
    events: list[tuple[Any, str]] = []
    for event in rng.get("events") or []:
        for kind, raw in event.items():
            if kind == "introduced" and str(raw) == "0":
                events.append((None, kind))
                continue
            bound = parse_version(ecosystem, str(raw))
            if bound is not None:
                events.append((bound, kind))
    base = [e for e in events if e[0] is None]
    rest = sorted((e for e in events if e[0] is not None),
                  key=lambda e: (e[0], e[1] != "introduced"))
    affected = False
    for bound, kind in base + rest:
        if bound is not None and (version < bound or (kind == "last_affected" and version == bound)):
            break
        affected = kind == "introduced"
    return affected


def fixed_versions(record: dict[str, Any], pkg: Package) -> list[str]:
    return [str(ev["fixed"]) for entry in affected_entries(record, pkg)
            for rng in entry.get("ranges") or [] for ev in rng.get("events") or [] if "fixed" in ev]
