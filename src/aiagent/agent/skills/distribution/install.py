"""Installing, updating and removing skills: plan everything first (fetch into staging,
validate, resolve dependencies, find conflicts), ask, then rename into place.

A plan that fails at any step leaves the skill folders and the lock file as they were:
every skill is staged in a hidden folder beside its destination and moved in by rename
only after every skill of the plan was fetched, verified and approved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from aiagent.agent.skills.distribution import sources
from aiagent.agent.skills.distribution.fstree import remove, staging_dir, swap_in
from aiagent.agent.skills.distribution.lockfile import Pin, read_receipt, write_receipt
from aiagent.agent.skills.distribution.names import DistError, Request, check_name
from aiagent.agent.skills.distribution.registry import Registry
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.versions import VersionError, satisfies

Confirm = Callable[[list[str]], bool]


@dataclass(slots=True)
class Plan:
    target: Path  # the skills folder installed into
    work: Path  # the staging folder (removed at the end)
    items: dict[str, sources.Fetched] = field(default_factory=dict)
    wanted_by: dict[str, list[str]] = field(default_factory=dict)  # dep -> "skill range"
    notes: list[str] = field(default_factory=list)

    def describe(self, installed: Mapping[str, Manifest]) -> list[str]:
        lines: list[str] = []
        for name, item in self.items.items():
            m, pin = item.manifest, item.pin
            old = installed.get(name)
            change = f" (replaces {old.version})" if old is not None else ""
            origin = {"registry": f"registry, commit {pin.commit}", "git": f"{pin.git} at {pin.commit}",
                      "path": f"folder {pin.path}"}[pin.source]
            lines.append(f"{name} {m.version}{change} — {origin}")
            lines.append(f"  {m.description[:200]}")
            lines.append(f"  backend: {m.backend or 'none (instructions only)'}")
            if m.implementation is not None and m.implementation.command:
                lines.append(f"  runs: {' '.join(m.implementation.command)}")
            lines.append(f"  permissions: {', '.join(m.permissions) or 'none'}")
            lines += [f"  needed by: {w}" for w in self.wanted_by.get(name, [])]
            lines += [f"  warning: {w}" for w in item.warnings]
        return lines + self.notes


class Installer:
    """Installs into ``target`` (a skills folder). ``installed`` are the skills aiagent
    finds now (every source), used for dependencies and conflicts."""

    def __init__(self, target: Path, installed: Mapping[str, Manifest],
                 registry: Callable[[], Registry] | None, project_root: Path) -> None:
        self.target = target
        self.installed = dict(installed)
        self._registry_factory = registry
        self._registry: Registry | None = None
        self.project_root = project_root

    def registry(self) -> Registry:
        if self._registry is None:
            if self._registry_factory is None:
                raise DistError("no skill registry is configured: set [skills] registry_url (a git URL or folder)")
            self._registry = self._registry_factory()
        return self._registry

    # ---- planning ---------------------------------------------------------------------

    def plan(self, requests: list[Request], force: bool = False) -> Plan:
        plan = Plan(self.target, staging_dir(self.target))
        try:
            for request in requests:
                self._add(plan, self._fetch(request, plan), force)
            self._resolve(plan, force)
            self._check_dependents(plan, force)
        except BaseException:
            remove(plan.work)
            raise
        return plan

    def plan_pins(self, pins: list[Pin]) -> Plan:
        plan = Plan(self.target, staging_dir(self.target))
        try:
            for pin in pins:
                got = sources.from_pin(pin, self._work(plan), self.project_root)
                plan.items[got.manifest.name] = got
        except BaseException:
            remove(plan.work)
            raise
        return plan

    def _work(self, plan: Plan) -> Path:
        work = plan.work / f"w{len(list(plan.work.iterdir()))}"
        work.mkdir()
        return work

    def _fetch(self, request: Request, plan: Plan) -> sources.Fetched:
        if request.kind == "registry":
            record = self.registry().pick(request.target, request.spec)
            got = sources.from_record(record, self._work(plan), self.registry().url)
            got.pin = replace(got.pin, spec=request.spec)
            return got
        if request.kind == "git":
            return sources.from_git(request.target, request.spec, self._work(plan))
        path = Path(request.target)
        rel = path.relative_to(self.project_root).as_posix() if path.is_relative_to(self.project_root) else str(path)
        return sources.from_path(path, self._work(plan), rel)

    def _add(self, plan: Plan, got: sources.Fetched, force: bool) -> None:
        name = check_name(got.manifest.name)
        if name in plan.items and plan.items[name].manifest.version != got.manifest.version:
            raise DistError(f"conflict: {name} asked for as {plan.items[name].manifest.version} and {got.manifest.version}")
        folder = self.target / name
        if not force and (folder.exists() or folder.is_symlink()) and read_receipt(folder) is None:
            raise DistError(f"conflict: {folder} exists and was not installed by aiagent (use --force to replace it)")
        plan.items[name] = got

    def _resolve(self, plan: Plan, force: bool) -> None:
        """Fetch every hard dependency missing or too old; optional ones only if the
        registry has them. Conflicting ranges are reported before anything is written."""
        queue = list(plan.items.values())
        while queue:
            item = queue.pop(0)
            for dep in item.manifest.dependencies:
                wants = f"{item.manifest.name} needs {dep.version or 'any version'}"
                plan.wanted_by.setdefault(dep.name, []).append(wants)
                have = plan.items.get(dep.name) or self.installed.get(dep.name)
                if have is not None and _fits(have, dep.version):
                    continue
                if dep.name in plan.items:
                    raise DistError(f"conflict: {dep.name} {_version(plan.items[dep.name])} is to be installed, but {wants}")
                ranges = [d.version for i in plan.items.values() for d in i.manifest.dependencies
                          if d.name == dep.name and d.version]
                spec = ", ".join(dict.fromkeys(ranges)) or None
                try:
                    got = self._fetch(Request("registry", dep.name, spec), plan)
                except DistError as exc:
                    if dep.optional:
                        plan.notes.append(f"optional dependency {dep.name} of {item.manifest.name} skipped: {exc}")
                        continue
                    raise DistError(f"cannot install {item.manifest.name}: dependency {dep.name} {dep.version or ''}: {exc}") from None
                self._add(plan, got, force)
                queue.append(got)

    def _check_dependents(self, plan: Plan, force: bool) -> None:
        """An installed skill must still find a version its range allows."""
        for other in self.installed.values():
            if other.name in plan.items:
                continue
            for dep in other.dependencies:
                new = plan.items.get(dep.name)
                if new is not None and not dep.optional and not _fits(new.manifest, dep.version) and not force:
                    raise DistError(f"conflict: {other.name} needs {dep.name} {dep.version}, and this would install {new.manifest.version}")

    # ---- applying ---------------------------------------------------------------------

    def apply(self, plan: Plan, confirm: Confirm) -> list[Pin]:
        try:
            if not confirm(plan.describe(self.installed)):
                raise DistError("not installed: not confirmed (use --yes to install without asking)")
            for got in plan.items.values():
                write_receipt(got.folder, got.pin)
            done: list[Pin] = []
            for name, got in plan.items.items():
                swap_in(got.folder, self.target / name)
                done.append(got.pin)
            return done
        finally:
            remove(plan.work)


def _version(have: Manifest | sources.Fetched) -> str:
    return have.manifest.version if isinstance(have, sources.Fetched) else have.version


def _fits(have: Manifest | sources.Fetched, spec: str | None) -> bool:
    try:
        return satisfies(_version(have), spec)
    except VersionError:
        return False


def dependents(name: str, installed: Mapping[str, Manifest]) -> list[str]:
    return sorted(m.name for m in installed.values()
                  if any(d.name == name and not d.optional for d in m.dependencies))


def uninstall(folder: Path) -> None:
    """Remove an installed skill folder (renamed aside first, then deleted)."""
    if not (folder.exists() or folder.is_symlink()):
        raise DistError(f"{folder}: not installed")
    aside = folder.with_name(f".old-{folder.name}")
    remove(aside)
    folder.rename(aside)
    remove(aside)
