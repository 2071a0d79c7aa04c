"""Dependency order (spec §4.9): dependencies activate first; cycles and missing or
mismatched hard dependencies are reported with the chain that leads to them; optional
dependencies that are missing or mismatched are skipped with a note."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.versions import VersionError, satisfies


@dataclass(slots=True)
class Plan:
    order: list[str] = field(default_factory=list)  # activation order, dependencies first
    errors: dict[str, str] = field(default_factory=dict)  # skill -> why it cannot activate
    notes: list[str] = field(default_factory=list)  # optional dependencies skipped


def _usable(dep_version: str | None, found: Manifest) -> bool:
    try:
        return satisfies(found.version, dep_version)
    except VersionError:
        return False


def resolve(wanted: Iterable[str], skills: Mapping[str, Manifest]) -> Plan:
    """The order to activate ``wanted`` and everything they need."""
    plan = Plan()
    done: set[str] = set()

    def visit(name: str, chain: list[str]) -> bool:
        if name in done:
            return name not in plan.errors
        if name in chain:
            cycle = " -> ".join([*chain[chain.index(name):], name])
            for member in chain[chain.index(name):]:
                plan.errors.setdefault(member, f"dependency cycle: {cycle}")
            return False
        manifest = skills[name]
        ok = True
        for dep in manifest.dependencies:
            found = skills.get(dep.name)
            wants = f"{dep.name} {dep.version}" if dep.version else dep.name
            if found is None or not _usable(dep.version, found):
                why = "not installed" if found is None else f"version {found.version} does not match"
                if dep.optional:
                    plan.notes.append(f"{name}: optional dependency {wants} skipped ({why})")
                    continue
                path = " -> ".join([*chain, name, dep.name])
                plan.errors.setdefault(name, f"needs {wants}, {why} ({path})")
                ok = False
                continue
            if not visit(dep.name, [*chain, name]):
                if dep.optional:
                    plan.notes.append(f"{name}: optional dependency {dep.name} skipped ({plan.errors.get(dep.name, 'failed')})")
                    continue
                plan.errors.setdefault(name, f"dependency {dep.name} cannot activate: {plan.errors.get(dep.name, 'failed')}")
                ok = False
        done.add(name)
        if ok and name not in plan.errors:
            plan.order.append(name)
        return ok and name not in plan.errors

    for name in wanted:
        if name not in skills:
            plan.errors[name] = "no such skill"
            continue
        visit(name, [])
    return plan
