"""The skill runtime (spec §4.4, "Skill Runtime Interface"): one object front-ends hold,
assembled from collaborators that each keep one responsibility —

* discovery: :class:`~aiagent.agent.skills.catalog.SkillCatalog` (which skills exist and can be used),
* activation: :class:`~aiagent.agent.skills.activation.Activation` (dependencies, then permissions
  through the :class:`~aiagent.agent.skills.permissions.PermissionGate`, then the code loaded),
* contributions: :class:`~aiagent.agent.skills.contributions.Contributions` (tools, hooks,
  workflows, scanners the active skills registered),
* execution: :class:`~aiagent.agent.skills.dispatch.Dispatch` (backends and calls into them).

* triggers: :class:`~aiagent.agent.skills.triggers.SessionTriggers` (what activates on
  its own at start and per user turn),
* prompt: :class:`~aiagent.agent.skills.prompting.SkillPrompt` (instructions, injected
  text and the index),
* changes: :class:`~aiagent.agent.skills.changes.SkillChanges` (who hears that tools or
  the prompt changed: the agent, through :func:`~aiagent.agent.skills.wiring.attach`).

Each part keeps its own state and gets only what it uses (the calls into skills go
through ``Dispatch.call``; none of them holds the runtime). This class orders them and
adds the security seam.
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
from aiagent.agent.skills.changes import SkillChanges
from aiagent.agent.skills.contributions import ActiveSkill, Contributions, WorkflowInfo
from aiagent.agent.skills.dispatch import Dispatch
from aiagent.agent.skills.hooks import HookBus
from aiagent.agent.skills.host import HostServices, LogSink
from aiagent.agent.skills.loader import Discovery
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.permissions import Approver, PermissionGate
from aiagent.agent.skills.triggers import ProjectFacts, SessionTriggers

__all__ = ["PLATFORM", "ActiveSkill", "RuleFile", "SkillRuntime", "SkillScanner", "WorkflowInfo"]

log = logging.getLogger("aiagent.agent.skills")


@dataclass(slots=True)
class SkillScanner:
    """A scanner an active skill registered; ``run(input)`` returns its findings."""

    skill: str
    name: str
    description: str
    call: Callable[[str, str, str, Any], Any]  # Dispatch.call: (skill, kind, name, arg)

    async def run(self, input: Mapping[str, Any]) -> Any:
        return await self.call(self.skill, "scanner", self.name, dict(input))


def skill_log(report: Callable[[str], None]) -> LogSink:
    """Where skills' ``log`` goes: warnings and errors to ``report``, the rest to the log."""

    def log_line(skill: str, level: str, message: str) -> None:
        if level.lower() in ("warn", "warning", "error"):
            report(f"skill {skill}: {message}")
        else:
            log.info("skill %s: %s", skill, message)

    return log_line


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
        self.report = report or (lambda message: log.warning("%s", message))
        self.services = services
        self.services.invoke = self.invoke
        self.services.log = skill_log(lambda message: self.report(message))
        self.gate = gate
        self.triggers = SessionTriggers(mode, tuple(dict.fromkeys(explicit)))
        self.explicit = self.triggers.explicit
        self.prompt = prompting.SkillPrompt(index_budget)
        self.changes = SkillChanges()
        self.bus = HookBus(report=lambda message: self.report(message))
        self.active: dict[str, ActiveSkill] = {}  # Activation's; Dispatch reads it
        self.dispatch = Dispatch(services, self.active, self.catalog.find, process_sandbox)
        self.contributions = Contributions(self.bus, lambda message: self.report(message),
                                           self.dispatch)
        self.tool_objects = self.contributions.tool_objects
        self.activation = Activation(self.catalog, gate, self.dispatch, self.contributions,
                                     self.active)
        self.errors = self.activation.errors
        for w in discovery.warnings:
            log.info("%s", w)

    # ---- queries -------------------------------------------------------------------

    def manifest(self, name: str) -> Manifest:
        return self.catalog.manifest(name)

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

    # ---- activation ----------------------------------------------------------------

    async def activate(self, name: str, reason: str = "requested", approver: Approver | None = None) -> ActiveSkill:
        """Activate ``name`` and, first, what it depends on. Raises with one clear line."""
        return await self.activation.activate(name, reason, approver)

    async def deactivate(self, name: str) -> None:
        skill = await self.activation.deactivate(name)
        if skill is not None:
            self.changes.tools([], list(skill.tools))
            self.changes.prompt()

    async def _activate_all(self, wanted: list[tuple[str, str]], approver: Approver | None) -> list[str]:
        done, added = await self.activation.activate_all(wanted, approver, self.report)
        if added or any(self.active[n].workflows for n in done):  # workflows: run_workflow
            self.changes.tools(added, [])
        if done:
            self.changes.prompt()
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

    async def start(self, facts: ProjectFacts | None, approver: Approver | None = None) -> list[str]:
        """Activate what is requested (``--skills``, AGENT.md) and what the project's files,
        languages and mode trigger. Failures are reported, never raised."""
        if self.triggers.begin(facts):  # said once per session: which of same-named skills is used
            for note in self.overrides.values():
                self.report(note)
        if self.catalog.uses_backend("starlark"):
            self.dispatch.prewarm_starlark()
        if facts is not None:
            self.services.language = facts.primary_language
        for name in self.explicit:
            if name not in self.entries:
                self.report(self.catalog.missing(name, f"--skills: no skill named {name!r}"))
        usable = [self.entries[n].manifest for n in self.available_names()]
        return await self._activate_all(self.triggers.wanted(usable, startup=True), approver)

    async def user_turn(self, text: str, approver: Approver | None = None) -> list[str]:
        """Keyword triggers for one user turn; also starts a new rate-limit turn."""
        assert self.services.counter is not None
        self.services.counter.reset()
        inactive = [self.entries[n].manifest for n in self.available_names() if n not in self.active]
        return await self._activate_all(self.triggers.wanted(inactive, text, startup=False), approver)

    # ---- prompt --------------------------------------------------------------------

    def prompt_fragments(self) -> list[Any]:
        """Active skills' instructions, text hooks injected, and the index of the rest."""
        return self.prompt.fragments(
            [(name, skill.manifest, skill.in_prompt) for name, skill in self.active.items()],
            [(name, self.bus.injected_text(name)) for name in self.bus.injected],
            [self.entries[n].manifest for n in self.available_names() if n not in self.active])

    def disclose(self, skill: ActiveSkill) -> str:
        skill.in_prompt = False  # its text goes into the conversation instead
        self.changes.tools(list(skill.tools), [])
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
        return [SkillScanner(n, s, d, self.dispatch.call)
                for n, a in self.active.items() for s, d in a.scanners.items()]

    async def activate_security_skills(self, approver: Approver | None = None) -> list[str]:
        wanted = [(n, "security") for n in self.available_names() if "security-rule" in self.entries[n].manifest.types
                  and self.entries[n].manifest.implementation is not None]
        return await self._activate_all(wanted, approver)

    async def fire(self, phase: str, event: Mapping[str, Any]) -> list[Any]:
        """Run hooks of any phase (wiki and security call their own phases here)."""
        return await self.bus.fire(phase, event)

    # ---- the front-end and shutdown ------------------------------------------------

    def ask_through(self, approver: Approver, report: Callable[[str], None]) -> None:
        """A front-end's way to ask for skills' permissions (when no approver is given to
        :meth:`activate`) and to show what goes wrong with skills."""
        self.gate.approver = approver
        self.report = report

    async def close(self) -> None:
        await self.dispatch.warming_done()
        await self.activation.close()
        await self.dispatch.close()
