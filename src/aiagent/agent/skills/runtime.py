"""The skill runtime (spec §4.4, "Skill Runtime Interface"): one object front-ends hold,
assembled from collaborators that each keep one responsibility —

* discovery: :class:`~aiagent.agent.skills.catalog.SkillCatalog` (which skills exist and can be used),
* activation: :class:`~aiagent.agent.skills.activation.Activation` (dependencies, then permissions
  through the :class:`~aiagent.agent.skills.permissions.PermissionGate`, then the code loaded),
* contributions: :class:`~aiagent.agent.skills.contributions.Contributions` (tools, hooks,
  workflows, scanners the active skills registered),
* execution: :class:`~aiagent.agent.skills.dispatch.Dispatch` (backends and calls into them).

This class adds the triggers (what to activate at start and per user turn), the prompt
fragments and the security seam on top.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aiagent.agent.skills import prompting
from aiagent.agent.skills.activation import Activation
from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.catalog import PLATFORM, RuleFile, SkillCatalog
from aiagent.agent.skills.contributions import ActiveSkill, Contributions, WorkflowInfo
from aiagent.agent.skills.dispatch import Dispatch
from aiagent.agent.skills.hooks import HookBus
from aiagent.agent.skills.host import HostServices
from aiagent.agent.skills.loader import Discovery
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.permissions import Approver, PermissionGate
from aiagent.agent.skills.triggers import ProjectFacts, TriggerContext, why_active

__all__ = ["PLATFORM", "ActiveSkill", "RuleFile", "SkillRuntime", "SkillScanner", "WorkflowInfo"]

log = logging.getLogger("aiagent.agent.skills")


@dataclass(slots=True)
class SkillScanner:
    """A scanner an active skill registered; ``run(input)`` returns its findings."""

    skill: str
    name: str
    description: str
    runtime: SkillRuntime

    async def run(self, input: Mapping[str, Any]) -> Any:
        return await self.runtime.call(self.skill, "scanner", self.name, dict(input))


class SkillRuntime:
    def __init__(
        self,
        discovery: Discovery,
        services: HostServices,
        gate: PermissionGate,
        *,
        disabled: Iterable[str] = (),
        mode: str = "headless",
        explicit: Iterable[str] = (),
        index_budget: int = prompting.DEFAULT_INDEX_BUDGET,
        process_sandbox: str = "auto",
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.catalog = SkillCatalog(discovery, disabled)
        self.entries, self.broken, self.held = self.catalog.entries, self.catalog.broken, self.catalog.held
        self.disabled = self.catalog.disabled
        self.overrides = discovery.overrides
        self.services = services
        self.services.invoke = self.invoke
        self.services.log = self._skill_log
        self.gate = gate
        self.mode = mode
        self.explicit = tuple(dict.fromkeys(explicit))
        self.index_budget = index_budget
        self.report = report or (lambda message: log.warning("%s", message))
        self.bus = HookBus(report=lambda message: self.report(message))
        self.contributions = Contributions(self.bus, lambda message: self.report(message))
        self.tool_objects = self.contributions.tool_objects
        self.dispatch = Dispatch(services, {}, self._manifest_or_none, process_sandbox)
        self.activation = Activation(self, self.catalog, gate, self.dispatch, self.contributions)
        self.dispatch.active = self.active = self.activation.active
        self.errors = self.activation.errors
        self.facts: ProjectFacts | None = None
        self.on_tools_changed: Callable[[list[str], list[str]], None] = lambda added, removed: None
        self.on_prompt_changed: Callable[[], None] = lambda: None
        self._started = False  # start() ran (the front-end's wiring asks)
        for w in discovery.warnings:
            log.info("%s", w)

    # ---- queries -------------------------------------------------------------------

    def manifest(self, name: str) -> Manifest:
        return self.catalog.manifest(name)

    def _manifest_or_none(self, name: str) -> Manifest | None:
        entry = self.entries.get(name)
        return entry.manifest if entry is not None else None

    def state(self, name: str) -> str:
        if name in self.disabled:
            return "disabled"
        if name in self.active:
            return "active"
        if name in self.errors:
            return "error"
        return "inactive"

    def usable(self, m: Manifest) -> str | None:
        """Why ``m`` cannot be used here (disabled, wrong platform or agent), or None."""
        return self.catalog.usable(m)

    def available_names(self) -> list[str]:
        return self.catalog.available_names()

    def workflows(self) -> dict[str, WorkflowInfo]:
        return self.contributions.workflows(self.active)

    def config_of(self, m: Manifest) -> dict[str, Any]:
        return self.dispatch.config_of(m)

    def starlark_worker(self) -> Any:
        """The shared Starlark worker (created, not started, on first use)."""
        return self.dispatch.starlark_worker()

    # ---- activation ----------------------------------------------------------------

    async def activate(self, name: str, reason: str = "requested", approver: Approver | None = None) -> ActiveSkill:
        """Activate ``name`` and, first, what it depends on. Raises with one clear line."""
        return await self.activation.activate(name, reason, approver)

    async def deactivate(self, name: str) -> None:
        skill = await self.activation.deactivate(name)
        if skill is not None:
            self.on_tools_changed([], list(skill.tools))
            self.on_prompt_changed()

    async def _activate_all(self, wanted: list[tuple[str, str]], approver: Approver | None) -> list[str]:
        done, added = await self.activation.activate_all(wanted, approver, self.report)
        if added or any(self.active[n].workflows for n in done):  # workflows: run_workflow
            self.on_tools_changed(added, [])
        if done:
            self.on_prompt_changed()
        return done

    # ---- calling into skills -------------------------------------------------------

    async def call(self, skill: str, kind: str, name: str, arg: Any) -> Any:
        return await self.dispatch.call(skill, kind, name, arg)

    async def invoke(self, caller: str, target: str, function: str, args: Any) -> Any:
        """``invoke_skill`` from ``caller``: a tool, workflow or public function of ``target``."""
        if target == caller:
            raise BackendError(f"skill {caller}: invoke_skill cannot call the skill itself")
        skill = self.active.get(target) or await self.activate(target, f"invoked by {caller}")
        kind = "tool" if function in skill.tools else "workflow" if function in skill.workflows else "function"
        result = await self.call(target, kind, function, args)
        if isinstance(result, dict) and "__error__" in result:
            raise BackendError(f"skill {target}: {result['__error__']}")
        return result

    async def run_workflow(self, name: str, input: Mapping[str, Any]) -> Any:
        known = self.workflows()
        return await self.dispatch.run_workflow(known.get(name), name, list(known), input)

    # ---- triggers ------------------------------------------------------------------

    def trigger_context(self, user_message: str = "") -> TriggerContext:
        return TriggerContext(self.facts, self.mode, self.explicit, user_message)

    async def start(self, facts: ProjectFacts | None, approver: Approver | None = None) -> list[str]:
        """Activate what is requested (``--skills``, AGENT.md) and what the project's files,
        languages and mode trigger. Failures are reported, never raised."""
        if not self._started:  # said once per session: which of same-named skills is used
            for note in self.overrides.values():
                self.report(note)
        self._started = True
        self.facts = facts
        if self.catalog.uses_backend("starlark"):
            self.dispatch.prewarm_starlark()
        if facts is not None:
            self.services.language = facts.primary_language
        for name in self.explicit:
            if name not in self.entries:
                self.report(self.catalog.missing(name, f"--skills: no skill named {name!r}"))
        ctx = self.trigger_context()
        wanted = [(n, why) for n in self.available_names() if (why := why_active(self.entries[n].manifest, ctx, startup=True))]
        return await self._activate_all(wanted, approver)

    async def user_turn(self, text: str, approver: Approver | None = None) -> list[str]:
        """Keyword triggers for one user turn; also starts a new rate-limit turn."""
        assert self.services.counter is not None
        self.services.counter.reset()
        ctx = self.trigger_context(text)
        wanted = [(n, why) for n in self.available_names()
                  if n not in self.active and (why := why_active(self.entries[n].manifest, ctx, startup=False))]
        return await self._activate_all(wanted, approver)

    # ---- prompt --------------------------------------------------------------------

    def prompt_fragments(self) -> list[Any]:
        """Active skills' instructions, text hooks injected, and the index of the rest."""
        from aiagent.contracts.prompt import PromptFragment

        out: list[PromptFragment] = []
        for name, skill in self.active.items():
            text = prompting.instructions(skill.manifest) if skill.in_prompt else ""
            if text:
                out.append(PromptFragment(f"Skill: {name}", text))
        for name in self.bus.injected:
            out.append(PromptFragment(f"From skill {name}", self.bus.injected_text(name)))
        index = self.index_budget > 0 and prompting.index_text(
            [self.entries[n].manifest for n in self.available_names() if n not in self.active], self.index_budget)
        if index:
            out.append(PromptFragment("Skills", index))
        return out

    def disclose(self, skill: ActiveSkill) -> str:
        skill.in_prompt = False  # its text goes into the conversation instead
        self.on_tools_changed(list(skill.tools), [])
        return prompting.disclosure(skill.manifest, skill.tools, skill.workflows)

    def read_resource(self, name: str, rel: str) -> str:
        return prompting.read_resource(self.manifest(name), rel)

    # ---- security seam -------------------------------------------------------------

    def security_rules(self) -> list[RuleFile]:
        """Rule packs of every usable security-rule skill (data only: no activation needed)."""
        return self.catalog.security_rules()

    def security_scanners(self) -> list[SkillScanner]:
        """Scanners registered by active skills (activate them first with
        :meth:`activate_security_skills`)."""
        return [SkillScanner(n, s, d, self) for n, a in self.active.items() for s, d in a.scanners.items()]

    async def activate_security_skills(self, approver: Approver | None = None) -> list[str]:
        wanted = [(n, "security") for n in self.available_names() if "security-rule" in self.entries[n].manifest.types
                  and self.entries[n].manifest.implementation is not None]
        return await self._activate_all(wanted, approver)

    async def fire(self, phase: str, event: Mapping[str, Any]) -> list[Any]:
        """Run hooks of any phase (wiki and security call their own phases here)."""
        return await self.bus.fire(phase, event)

    # ---- reporting and shutdown ----------------------------------------------------

    def _skill_log(self, skill: str, level: str, message: str) -> None:
        if level.lower() in ("warn", "warning", "error"):
            self.report(f"skill {skill}: {message}")
        else:
            log.info("skill %s: %s", skill, message)

    async def close(self) -> None:
        await self.dispatch.warming_done()
        await self.activation.close()
        await self.dispatch.close()
