"""What active skills contribute: tools, hooks, workflows and scanners, registered from
what a backend's code declared when it loaded, and removed again on deactivation."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiagent.agent.skills.backends.base import Backend, BackendError, Registered
from aiagent.agent.skills.hooks import HookBus
from aiagent.agent.skills.host import SkillHost
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.tools import SkillTool
from aiagent.agent.tools.base import ToolRegistry
from aiagent.agent.tools.profiles import expand_groups, offerable

HookCall = Callable[[str, str, dict[str, Any]], Awaitable[Any]]  # (skill, hook key, event)


class Caller(Protocol):
    """Calls into active skills' code (:class:`~aiagent.agent.skills.dispatch.Dispatch`)."""

    async def call(self, skill: str, kind: str, name: str, arg: Any) -> Any: ...
    async def call_hook(self, skill: str, key: str, event: dict[str, Any]) -> Any: ...


@dataclass(slots=True)
class WorkflowInfo:
    skill: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] | None = None


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


class Contributions:
    """The tools (by name), hooks and workflows of the active skills; the tools and hooks
    call into the skills through ``caller``."""

    def __init__(self, bus: HookBus, report: Callable[[str], None], caller: Caller) -> None:
        self.bus = bus
        self.report = report
        self.caller = caller
        self.tool_objects: dict[str, Any] = {}
        self.workflow_info: dict[str, WorkflowInfo] = {}

    def register(self, skill: ActiveSkill, items: list[Registered]) -> None:
        m = skill.manifest
        declared = {t.name: t for t in m.tools}
        for item in items:
            if item.kind == "tool":
                self._tool(skill, item)
            elif item.kind == "hook":
                phase = str(item.opts.get("phase") or item.name.split("#", 1)[0])
                self.bus.add(m.name, phase, _hook(self.caller.call_hook, m.name, item.name), int(item.opts.get("priority", 100)))
            elif item.kind == "workflow":
                decl_w = next((w for w in m.workflows if w.name == item.name), None)
                self.workflow_info[item.name] = WorkflowInfo(
                    m.name, item.name, item.opts.get("description") or (decl_w.description if decl_w else ""),
                    item.opts.get("input_schema") or (decl_w.input_schema if decl_w else None))
                skill.workflows.append(item.name)
            elif item.kind == "scanner":
                skill.scanners[item.name] = str(item.opts.get("description", ""))
        missing = [t for t in declared if t not in skill.tools]
        if missing:
            raise BackendError(f"skill {m.name}: tools declared in the manifest but not registered by the code: {', '.join(missing)}")

    def _tool(self, skill: ActiveSkill, item: Registered) -> None:

        m = skill.manifest
        decl = next((t for t in m.tools if t.name == item.name), None)
        schema = item.opts.get("input_schema") or (decl.input_schema if decl else None)
        desc = item.opts.get("description") or (decl.description if decl else "") or f"{item.name} (skill {m.name})"
        approval = bool(item.opts.get("requires_approval")) or bool(decl and decl.requires_approval)
        owner = self.tool_objects.get(item.name)
        if owner is not None and getattr(owner, "skill", None) != m.name:
            self.report(f"skill {m.name}: tool {item.name} is already provided by skill "
                        f"{getattr(owner, 'skill', 'aiagent')}; skipped")
            return
        tool = SkillTool(self.caller.call, m.name, item.name, desc, schema or {"type": "object", "properties": {}}, approval)
        self.tool_objects[item.name] = tool
        skill.tools.append(item.name)

    def add_builtin(self, skill: ActiveSkill, builtin: bool) -> None:
        """A built-in skill's ``builtin_tools``: aiagent's own tools (each with its declared
        effect, so the approval policy decides as for any built-in tool), less those this
        platform cannot run. Other skills may not claim them."""

        m = skill.manifest
        if not builtin:
            self.report(f"skill {m.name}: builtin_tools is for built-in skills only; ignored")
            return
        registry = ToolRegistry()
        for name in offerable(expand_groups(m.builtin_tools)):
            tool = registry.get(name)
            if tool is not None and name not in self.tool_objects:
                self.tool_objects[name] = tool
                skill.tools.append(name)

    async def unregister(self, skill: ActiveSkill) -> None:
        for name in skill.tools:
            self.tool_objects.pop(name, None)
        self.bus.remove_skill(skill.manifest.name)
        if skill.backend is not None:
            await skill.backend.close()

    def workflows(self, active: dict[str, ActiveSkill]) -> dict[str, WorkflowInfo]:
        found: dict[str, WorkflowInfo] = {}
        for skill in active.values():
            for name in skill.workflows:
                found[name] = self.workflow_info.get(name, WorkflowInfo(skill.manifest.name, name))
        return found


def _hook(call_hook: HookCall, skill: str, key: str) -> Callable[[dict[str, Any]], Awaitable[Any]]:
    async def call(event: dict[str, Any]) -> Any:
        return await call_hook(skill, key, event)

    return call
