"""What ``aiagent skill install/add/remove/update/outdated/search`` do, given settings:
where skills go (the user's skills folder, or the project's ``.agent/skills`` and its lock
file), which registry to read, and what is installed now."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aiagent.agent.skills.config import skills_table
from aiagent.agent.skills.distribution import lockfile
from aiagent.agent.skills.distribution.install import Confirm, Installer, dependents, uninstall
from aiagent.agent.skills.distribution.lockfile import Pin
from aiagent.agent.skills.distribution.names import DistError, Request, check_name, parse_request
from aiagent.agent.skills.distribution.registry import Registry, from_settings
from aiagent.agent.skills.loader import default_sources, discover
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.versions import parse_version
from aiagent.infra.config import paths
from aiagent.infra.config.settings import Settings


@dataclass(slots=True)
class Context:
    settings: Settings
    project_root: Path
    user_dir: Path
    refresh: bool = False

    @property
    def project_dir(self) -> Path:
        return self.project_root / ".agent" / "skills"

    @property
    def lock(self) -> Path:
        return lockfile.lock_path(self.project_root)

    def target(self, project: bool) -> Path:
        return self.project_dir if project else self.user_dir

    def registry(self) -> Registry:
        return from_settings(self.settings, self.refresh)

    def installed(self) -> dict[str, Manifest]:

        home = Path(self.settings.env.get("HOME") or Path.home())
        table = skills_table(self.settings)
        found = discover(default_sources(self.settings.workspace, self.project_root,
                                         paths.config_dir(self.settings.env), home, table))
        return {n: e.manifest for n, e in found.skills.items()}

    def installer(self, project: bool) -> Installer:
        return Installer(self.target(project), self.installed(), self.registry, self.project_root)


def context(settings: Settings, refresh: bool = False) -> Context:
    user = settings.skills.user_skills_dir
    user_dir = Path(str(user)).expanduser() if user else paths.config_dir(settings.env) / "skills"
    return Context(settings, paths.project_root(settings.workspace), user_dir, refresh)


def _record(ctx: Context, pins: list[Pin]) -> None:
    locked = lockfile.read_lock(ctx.lock)
    locked.update({p.name: p for p in pins})
    lockfile.write_lock(ctx.lock, locked)


def install(ctx: Context, texts: list[str], project: bool, confirm: Confirm, force: bool = False) -> list[Pin]:
    requests = [parse_request(t, ctx.settings.workspace) for t in texts]
    if project:
        lockfile.read_lock(ctx.lock)  # a broken lock file stops us before anything is fetched
    installer = ctx.installer(project)
    pins = installer.apply(installer.plan(requests, force), confirm)
    if project:
        _record(ctx, pins)
    return pins


def install_locked(ctx: Context, confirm: Confirm) -> tuple[list[Pin], list[str]]:
    """Install what the lock file names, where the installed copy differs from it."""
    pins = lockfile.read_lock(ctx.lock)
    if not pins:
        raise DistError(f"{ctx.lock}: no lock file (or it lists no skills); name a skill to install")
    fresh = [n for n, p in pins.items() if (r := lockfile.read_receipt(ctx.project_dir / n)) is not None
             and r.digest == p.digest and r.version == p.version]
    todo = [p for n, p in pins.items() if n not in fresh]
    if not todo:
        return [], fresh
    installer = ctx.installer(True)
    return installer.apply(installer.plan_pins(todo), confirm), fresh


def remove_skill(ctx: Context, name: str, project: bool, force: bool = False) -> Path:
    check_name(name)
    folder = ctx.target(project) / name
    if not (folder.exists() or folder.is_symlink()):
        where = "this project's .agent/skills" if project else str(ctx.user_dir)
        raise DistError(f"{name}: not installed in {where}" + ("" if project else " (use --project for .agent/skills)"))
    users = [d for d in dependents(name, ctx.installed()) if d != name]
    if users and not force:
        raise DistError(f"{name} is needed by {', '.join(users)} (use --force to remove it anyway)")
    locked = lockfile.read_lock(ctx.lock) if project else {}
    uninstall(folder)
    if project and name in locked:
        del locked[name]
        lockfile.write_lock(ctx.lock, locked)
    return folder


@dataclass(frozen=True, slots=True)
class Outdated:
    name: str
    installed: str
    wanted: str  # newest the recorded range allows
    latest: str
    where: str


def _installed_pins(ctx: Context) -> list[tuple[Pin, bool]]:
    found: list[tuple[Pin, bool]] = []
    for project in (False, True):
        base = ctx.target(project)
        for folder in sorted(base.iterdir()) if base.is_dir() else []:
            pin = lockfile.read_receipt(folder)
            if pin is not None and not folder.name.startswith("."):
                found.append((pin, project))
    return found


def outdated(ctx: Context) -> list[Outdated]:

    rows = []
    registry = ctx.registry()
    for pin, project in _installed_pins(ctx):
        if pin.source != "registry":
            continue
        versions = registry.versions(pin.name)
        wanted = registry.pick(pin.name, pin.spec).version
        if parse_version(versions[-1]) > parse_version(pin.version) or wanted != pin.version:
            rows.append(Outdated(pin.name, pin.version, wanted, versions[-1], "project" if project else "user"))
    return rows


def update(ctx: Context, names: list[str], confirm: Confirm) -> list[Pin]:
    """Move registry skills to the newest version their range allows (git skills to the
    newest commit of their ref)."""
    done: list[Pin] = []
    for project in (False, True):
        chosen = [p for p, proj in _installed_pins(ctx) if proj == project and (not names or p.name in names)]
        requests = [r for r in (_update_request(ctx, p) for p in chosen) if r is not None]
        if not requests:
            continue
        installer = ctx.installer(project)
        pins = installer.apply(installer.plan(requests, force=True), confirm)
        if project:
            _record(ctx, pins)
        done += pins
    return done


def _update_request(ctx: Context, pin: Pin) -> Request | None:
    if pin.source == "registry":
        newest = ctx.registry().pick(pin.name, pin.spec)
        return None if newest.version == pin.version else Request("registry", pin.name, pin.spec)
    if pin.source == "git":
        return Request("git", pin.git or "", pin.ref)
    return None
