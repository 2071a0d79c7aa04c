"""The skill runtime: discovery results, activation (dependencies first, permissions
approved), the tools, prompt fragments, hooks, workflows and security contributions of
the active skills (spec §4.4, "Skill Runtime Interface")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent import __version__
from aiagent.skills import prompting
from aiagent.skills.backends.base import Backend, BackendError, Registered
from aiagent.skills.deps import resolve
from aiagent.skills.hooks import HookBus
from aiagent.skills.host import HostServices, SkillHost
from aiagent.skills.loader import BrokenSkill, Discovery, SkillEntry
from aiagent.skills.manifest import Manifest
from aiagent.skills.permissions import Approver, PermissionDenied, PermissionGate
from aiagent.skills.triggers import ProjectFacts, TriggerContext, why_active
from aiagent.skills.versions import VersionError, satisfies

log = logging.getLogger("aiagent.skills")
PLATFORM = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)


@dataclass(slots=True)
class WorkflowInfo:
    skill: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RuleFile:
    """A rule pack a security-rule skill contributes (for the security engine)."""

    skill: str
    kind: str  # sast | overrides
    path: Path


@dataclass(slots=True)
class SkillScanner:
    """A scanner an active skill registered; ``run(input)`` returns its findings."""

    skill: str
    name: str
    description: str
    runtime: SkillRuntime

    async def run(self, input: Mapping[str, Any]) -> Any:
        return await self.runtime.call(self.skill, "scanner", self.name, dict(input))


@dataclass(slots=True)
class ActiveSkill:
    manifest: Manifest
    reason: str
    host: SkillHost
    backend: Backend | None = None
    tools: list[str] = field(default_factory=list)
    workflows: list[str] = field(default_factory=list)
    scanners: dict[str, str] = field(default_factory=dict)
    in_prompt: bool = True  # its instructions go in the system prompt


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
        self.entries: dict[str, SkillEntry] = discovery.skills
        self.broken: list[BrokenSkill] = discovery.broken
        self.held: dict[str, SkillEntry] = discovery.held  # skills of an untrusted folder
        self.services = services
        self.services.invoke = self.invoke
        self.services.log = self._skill_log
        self.gate = gate
        self.disabled = set(disabled)
        self.mode = mode
        self.explicit = tuple(dict.fromkeys(explicit))
        self.index_budget = index_budget
        self.process_sandbox = process_sandbox
        self.report = report or (lambda message: log.warning("%s", message))
        self.bus = HookBus(report=self._report)
        self.active: dict[str, ActiveSkill] = {}
        self.errors: dict[str, str] = {}
        self.facts: ProjectFacts | None = None
        self.tool_objects: dict[str, Any] = {}
        self.on_tools_changed: Callable[[list[str], list[str]], None] = lambda added, removed: None
        self.on_prompt_changed: Callable[[], None] = lambda: None
        self._started = False
        self._starlark: Any = None
        self._warming: asyncio.Task[None] | None = None
        self._workflow_info: dict[str, WorkflowInfo] = {}
        for w in discovery.warnings:
            log.info("%s", w)

    # ---- queries -------------------------------------------------------------------

    def manifest(self, name: str) -> Manifest:
        entry = self.entries.get(name)
        if entry is None:
            broken = next((b for b in self.broken if b.name == name), None)
            if broken is not None:
                raise LookupError(f"skill {name} cannot load: {broken.error}")
            if name in self.held:
                raise LookupError(self._held_message(name))
            raise LookupError(f"no skill named {name!r} (known: {', '.join(sorted(self.entries)) or 'none'})")
        return entry.manifest

    def _held_message(self, name: str) -> str:
        return (f"skill {name} came with this folder, which is not trusted "
                "(trust it with `aiagent trust` or --trust)")

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
        if m.name in self.disabled:
            return f"skill {m.name} is disabled (see [skills] disabled, or `aiagent skill enable {m.name}`)"
        if m.platforms and PLATFORM not in m.platforms:
            return f"skill {m.name} supports {', '.join(m.platforms)}, not {PLATFORM}"
        try:
            if m.agent_version and not satisfies(__version__, m.agent_version):
                return f"skill {m.name} needs aiagent {m.agent_version} (this is {__version__})"
        except VersionError:
            return None
        return None

    def available_names(self) -> list[str]:
        return sorted(n for n, e in self.entries.items() if self.usable(e.manifest) is None)

    def workflows(self) -> dict[str, WorkflowInfo]:
        found: dict[str, WorkflowInfo] = {}
        for skill in self.active.values():
            for name in skill.workflows:
                found[name] = self._workflow_info.get(name, WorkflowInfo(skill.manifest.name, name))
        return found

    # ---- activation ----------------------------------------------------------------

    async def activate(self, name: str, reason: str = "requested", approver: Approver | None = None) -> ActiveSkill:
        """Activate ``name`` and, first, what it depends on. Raises with one clear line."""
        if name in self.active:
            return self.active[name]
        manifest = self.manifest(name)
        problem = self.usable(manifest)
        if problem:
            raise ValueError(problem)
        plan = resolve([name], {n: e.manifest for n, e in self.entries.items() if self.usable(e.manifest) is None})
        for note in plan.notes:
            log.info("%s", note)
        if name in plan.errors:
            self.errors[name] = f"skill {name}: {plan.errors[name]}"
            raise ValueError(self.errors[name])
        for dep in plan.order:
            if dep not in self.active:
                await self._activate_one(self.entries[dep].manifest, reason if dep == name else f"needed by {name}", approver)
        return self.active[name]

    async def _activate_one(self, m: Manifest, reason: str, approver: Approver | None) -> None:
        try:
            await self.gate.ensure(m.name, m.permissions, approver)
        except PermissionDenied as exc:
            self.errors[m.name] = str(exc)
            raise
        skill = ActiveSkill(m, reason, SkillHost(self.services, m))
        try:
            if m.implementation is not None:
                skill.backend = self._backend(skill)
                self._register(skill, await skill.backend.load())
        except BackendError as exc:
            await self._unregister(skill)
            self.errors[m.name] = str(exc)
            raise
        self.errors.pop(m.name, None)
        self.active[m.name] = skill
        log.info("skill %s activated (%s)", m.name, reason)
        await self.bus.fire("on_activate", {"config": self.config_of(m)}, only=m.name)

    def _backend(self, skill: ActiveSkill) -> Backend:
        m = skill.manifest
        assert m.implementation is not None
        backend = m.implementation.backend
        if backend == "starlark":
            from aiagent.skills.backends.starlark import StarlarkBackend

            return StarlarkBackend(m, self.starlark_worker())
        if backend == "process":
            from aiagent.skills.backends.process import ProcessBackend

            timeout = m.implementation.timeout or self.services.limits.call_timeout
            return ProcessBackend(skill.host, self.config_of(m), timeout, self.process_sandbox)
        from aiagent.skills.backends.python import PythonBackend

        return PythonBackend(skill.host, self.config_of(m))

    def starlark_worker(self) -> Any:
        """The shared Starlark worker (created, not started, on first use)."""
        if self._starlark is None:
            from aiagent.skills.backends.starlark import StarlarkWorker

            self._starlark = StarlarkWorker(self.services.limits, self._route)
        return self._starlark

    def _prewarm_starlark(self) -> None:
        """Start the shared Starlark worker in the background when some usable skill will
        need it, so a skill activated later loads in milliseconds."""
        def uses_starlark(name: str) -> bool:
            impl = self.entries[name].manifest.implementation
            return impl is not None and impl.backend == "starlark"

        if self._warming is None and any(uses_starlark(n) for n in self.available_names()):
            self._warming = asyncio.create_task(self.starlark_worker().warm())

    def _route(self, skill: str) -> SkillHost | None:
        active = self.active.get(skill.split(":", 1)[0])
        if active is not None:
            return active.host
        pending = self.entries.get(skill)
        return SkillHost(self.services, pending.manifest) if pending is not None else None

    def config_of(self, m: Manifest) -> dict[str, Any]:
        return {**m.config, **dict(self.services.skill_config.get(m.name, {}))}

    def _register(self, skill: ActiveSkill, items: list[Registered]) -> None:
        from aiagent.skills.tools import SkillTool

        m = skill.manifest
        declared = {t.name: t for t in m.tools}
        for item in items:
            if item.kind == "tool":
                decl = declared.get(item.name)
                schema = item.opts.get("input_schema") or (decl.input_schema if decl else None)
                desc = item.opts.get("description") or (decl.description if decl else "") or f"{item.name} (skill {m.name})"
                approval = bool(item.opts.get("requires_approval")) or bool(decl and decl.requires_approval)
                if item.name in self.tool_objects and self.tool_objects[item.name].skill != m.name:
                    self._report(f"skill {m.name}: tool {item.name} is already provided by skill {self.tool_objects[item.name].skill}; skipped")
                    continue
                tool = SkillTool(self, m.name, item.name, desc, schema or {"type": "object", "properties": {}}, approval)
                self.tool_objects[item.name] = tool
                skill.tools.append(item.name)
            elif item.kind == "hook":
                phase = str(item.opts.get("phase") or item.name.split("#", 1)[0])
                self.bus.add(m.name, phase, self._hook_caller(m.name, item.name), int(item.opts.get("priority", 100)))
            elif item.kind == "workflow":
                decl_w = next((w for w in m.workflows if w.name == item.name), None)
                self._workflow_info[item.name] = WorkflowInfo(
                    m.name, item.name, item.opts.get("description") or (decl_w.description if decl_w else ""),
                    item.opts.get("input_schema") or (decl_w.input_schema if decl_w else None))
                skill.workflows.append(item.name)
            elif item.kind == "scanner":
                skill.scanners[item.name] = str(item.opts.get("description", ""))
        missing = [t for t in declared if t not in skill.tools]
        if missing:
            raise BackendError(f"skill {m.name}: tools declared in the manifest but not registered by the code: {', '.join(missing)}")

    def _hook_caller(self, skill: str, key: str) -> Callable[[dict[str, Any]], Any]:
        async def call(event: dict[str, Any]) -> Any:
            m = self.entries[skill].manifest
            return await self.call(skill, "hook", key, {**event, "config": self.config_of(m)})

        return call

    async def _unregister(self, skill: ActiveSkill) -> None:
        for name in skill.tools:
            self.tool_objects.pop(name, None)
        self.bus.remove_skill(skill.manifest.name)
        if skill.backend is not None:
            await skill.backend.close()

    async def deactivate(self, name: str) -> None:
        skill = self.active.get(name)
        if skill is None:
            return
        await self.bus.fire("on_deactivate", {"config": self.config_of(skill.manifest)}, only=name)
        del self.active[name]
        await self._unregister(skill)
        self.on_tools_changed([], list(skill.tools))
        self.on_prompt_changed()

    # ---- calling into skills -------------------------------------------------------

    async def call(self, skill: str, kind: str, name: str, arg: Any) -> Any:
        active = self.active.get(skill)
        if active is None or active.backend is None:
            raise BackendError(f"skill {skill} is not active")
        return await active.backend.call(kind, name, arg)

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
        info = self.workflows().get(name)
        if info is None:
            raise BackendError(f"no workflow named {name!r} (active workflows: {', '.join(sorted(self.workflows())) or 'none'})")
        if info.input_schema:
            import jsonschema

            problem = next(iter(jsonschema.Draft202012Validator(info.input_schema).iter_errors(dict(input))), None)
            if problem is not None:
                raise BackendError(f"workflow {name}: input: {problem.message}")
        return await self.call(info.skill, "workflow", name, dict(input))

    # ---- triggers ------------------------------------------------------------------

    def trigger_context(self, user_message: str = "") -> TriggerContext:
        return TriggerContext(self.facts, self.mode, self.explicit, user_message)

    async def start(self, facts: ProjectFacts | None, approver: Approver | None = None) -> list[str]:
        """Activate what is requested (``--skills``, AGENT.md) and what the project's files,
        languages and mode trigger. Failures are reported, never raised."""
        self._started = True
        self.facts = facts
        self._prewarm_starlark()
        if facts is not None:
            self.services.language = facts.primary_language
        for name in self.explicit:
            if name not in self.entries:
                self._report(self._unknown(name))
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

    async def _activate_all(self, wanted: list[tuple[str, str]], approver: Approver | None) -> list[str]:
        done: list[str] = []
        before = set(self.tool_objects)
        for name, why in wanted:
            if name in self.active:
                continue
            try:
                await self.activate(name, why, approver)
                done.append(name)
            except (BackendError, PermissionDenied, ValueError, LookupError) as exc:
                self._report(str(exc))
        added = [n for n in self.tool_objects if n not in before]
        if added or any(self.active[n].workflows for n in done):  # workflows: run_workflow
            self.on_tools_changed(added, [])
        if done:
            self.on_prompt_changed()
        return done

    def _unknown(self, name: str) -> str:
        broken = next((b for b in self.broken if b.name == name), None)
        if broken is not None:
            return f"skill {name} cannot load: {broken.error}"
        if name in self.held:
            return self._held_message(name)
        return f"--skills: no skill named {name!r} (known: {', '.join(sorted(self.entries)) or 'none'})"

    # ---- prompt --------------------------------------------------------------------

    def prompt_fragments(self) -> list[Any]:
        """Active skills' instructions, text hooks injected, and the index of the rest."""
        from aiagent.core.prompt import PromptFragment

        out: list[PromptFragment] = []
        for name, skill in self.active.items():
            text = prompting.instructions(skill.manifest) if skill.in_prompt else ""
            if text:
                out.append(PromptFragment(f"Skill: {name}", text))
        for name, text in self.bus.injected.items():
            out.append(PromptFragment(f"From skill {name}", text))
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
        found: list[RuleFile] = []
        for name in self.available_names():
            m = self.entries[name].manifest
            rules = m.security_rules
            if rules is None or "security-rule" not in m.types:
                continue
            if rules.sast_rules_file:
                found.append(RuleFile(name, "sast", m.root / rules.sast_rules_file))
            if rules.overrides_file:
                found.append(RuleFile(name, "overrides", m.root / rules.overrides_file))
        return found

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

    def _report(self, message: str) -> None:
        self.report(message)

    def _skill_log(self, skill: str, level: str, message: str) -> None:
        if level.lower() in ("warn", "warning", "error"):
            self.report(f"skill {skill}: {message}")
        else:
            log.info("skill %s: %s", skill, message)

    async def close(self) -> None:
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warming
        for name in list(self.active):
            skill = self.active.pop(name)
            await self._unregister(skill)
        if self._starlark is not None:
            await self._starlark.close()
