"""Activating skills: dependencies first, each one's permissions through the gate
(:class:`~aiagent.agent.skills.permissions.PermissionGate`), then its code loaded and what it
registers added; deactivating takes all of that away again."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.catalog import SkillCatalog
from aiagent.agent.skills.contributions import ActiveSkill, Contributions
from aiagent.agent.skills.deps import resolve
from aiagent.agent.skills.dispatch import Dispatch
from aiagent.agent.skills.host import SkillHost
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.permissions import Approver, PermissionDenied, PermissionGate

if TYPE_CHECKING:
    from aiagent.agent.skills.contributions import WorkflowInfo
    from aiagent.agent.skills.loader import SkillEntry

log = logging.getLogger("aiagent.agent.skills")
SKILL_ERRORS = (BackendError, PermissionDenied, ValueError, LookupError)


class Activation:
    def __init__(self, catalog: SkillCatalog, gate: PermissionGate, dispatch: Dispatch,
                 contributions: Contributions, active: dict[str, ActiveSkill]) -> None:
        self.catalog = catalog
        self.gate = gate
        self.dispatch = dispatch
        self.contributions = contributions
        self.active = active  # kept here, read by Dispatch
        self.errors: dict[str, str] = {}

    async def activate(self, name: str, reason: str, approver: Approver | None) -> ActiveSkill:
        """Activate ``name`` and, first, what it depends on. Raises with one clear line."""
        if name in self.active:
            return self.active[name]
        manifest = self.catalog.manifest(name)
        problem = self.catalog.usable(manifest)
        if problem:
            raise ValueError(problem)
        plan = resolve([name], self.catalog.usable_manifests())
        for note in plan.notes:
            log.info("%s", note)
        if name in plan.errors:
            self.errors[name] = f"skill {name}: {plan.errors[name]}"
            raise ValueError(self.errors[name])
        for dep in plan.order:
            if dep not in self.active:
                why = reason if dep == name else f"needed by {name}"
                await self._activate_one(self.catalog.entries[dep].manifest, why, approver)
        return self.active[name]

    async def _activate_one(self, m: Manifest, reason: str, approver: Approver | None) -> None:
        try:
            await self.gate.ensure(m.name, m.permissions, approver)
        except PermissionDenied as exc:
            self.errors[m.name] = str(exc)
            raise
        skill = ActiveSkill(m, reason, SkillHost(self.dispatch.services, m))
        try:
            if m.implementation is not None:
                skill.backend = self.dispatch.backend(skill)
                items = await skill.backend.load()
                self.contributions.register(skill, items)
            if m.builtin_tools:
                self.contributions.add_builtin(skill, self.catalog.entries[m.name].source == "builtin")
        except BackendError as exc:
            await self.contributions.unregister(skill)
            self.errors[m.name] = str(exc)
            raise
        self.errors.pop(m.name, None)
        self.active[m.name] = skill
        log.info("skill %s activated (%s)", m.name, reason)
        await self.contributions.bus.fire("on_activate", {"config": self.dispatch.config_of(m)}, only=m.name)

    async def deactivate(self, name: str) -> ActiveSkill | None:
        skill = self.active.get(name)
        if skill is None:
            return None
        await self.contributions.bus.fire("on_deactivate", {"config": self.dispatch.config_of(skill.manifest)}, only=name)
        del self.active[name]
        await self.contributions.unregister(skill)
        return skill

    async def activate_all(self, wanted: list[tuple[str, str]], approver: Approver | None,
                           report: Callable[[str], None]) -> tuple[list[str], list[str]]:
        """Activate each of ``wanted`` (name, why); failures are reported, not raised.
        Returns the skills activated and the tools they added."""
        done: list[str] = []
        before = set(self.contributions.tool_objects)
        for name, why in wanted:
            if name in self.active:
                continue
            try:
                await self.activate(name, why, approver)
                done.append(name)
            except SKILL_ERRORS as exc:
                report(str(exc))
        added = [n for n in self.contributions.tool_objects if n not in before]
        return done, added

    async def close(self) -> None:
        """End of the session: every active skill is deactivated, its ``on_deactivate``
        hooks run first (the skills that depend on others before those they need)."""
        for name in reversed(list(self.active)):
            await self.deactivate(name)


class WorkflowSkills(Protocol):
    """What :func:`activate_workflow` needs (a :class:`~aiagent.agent.skills.runtime.SkillRuntime`)."""

    entries: dict[str, SkillEntry]

    def available_names(self) -> list[str]: ...
    def workflows(self) -> dict[str, WorkflowInfo]: ...
    async def activate(self, name: str, reason: str = ...) -> ActiveSkill: ...


async def activate_workflow(rt: WorkflowSkills, name: str, report: Callable[[str], None]) -> None:
    """Activate the skill that provides workflow ``name``: the one whose manifest declares
    it (its failure is raised), else each workflow skill in turn until one registers it
    (their failures are reported)."""
    usable = rt.available_names()
    owners = [n for n in usable if any(w.name == name for w in rt.entries[n].manifest.workflows)]
    candidates = owners or [n for n in usable if "workflow" in rt.entries[n].manifest.types]
    for skill_name in candidates:
        if name in rt.workflows():
            return
        try:
            await rt.activate(skill_name, "workflow")
        except Exception as exc:  # noqa: BLE001 - try the others, report this one
            if owners:
                raise
            report(str(exc))
