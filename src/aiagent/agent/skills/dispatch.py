"""Running active skills' code: a backend per skill (the shared Starlark worker, a
process, an in-process plugin) and calls into it — tools, hooks, workflows, and
``invoke_skill`` between skills."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.backends.base import Backend, BackendError
from aiagent.agent.skills.backends.python import PythonBackend
from aiagent.agent.skills.contributions import ActiveSkill, WorkflowInfo
from aiagent.agent.skills.host import HostServices, SkillHost
from aiagent.agent.skills.manifest import Manifest

if TYPE_CHECKING:  # asyncio is imported when a skill runs: listing skills must not pay for it
    import asyncio


class Dispatch:
    def __init__(self, services: HostServices, active: Mapping[str, ActiveSkill],
                 manifests: Callable[[str], Manifest | None], process_sandbox: str = "auto") -> None:
        self.services = services
        self.active = active  # the active skills (Activation keeps them; read here)
        self.manifests = manifests  # a skill's manifest, active or not (for host routing)
        self.process_sandbox = process_sandbox
        self.starlark: Any = None
        self.warming: asyncio.Task[None] | None = None

    def config_of(self, m: Manifest) -> dict[str, Any]:
        return {**m.config, **dict(self.services.skill_config.get(m.name, {}))}

    def backend(self, skill: ActiveSkill) -> Backend:
        m = skill.manifest
        assert m.implementation is not None
        backend = m.implementation.backend
        if backend == "starlark":
            from aiagent.agent.skills.backends.starlark import StarlarkBackend

            return StarlarkBackend(m, self.starlark_worker())
        if backend == "process":
            from aiagent.agent.skills.backends.process import ProcessBackend

            timeout = m.implementation.timeout or self.services.limits.call_timeout
            return ProcessBackend(skill.host, self.config_of(m), timeout, self.process_sandbox)

        return PythonBackend(skill.host, self.config_of(m))

    def starlark_worker(self) -> Any:
        """The shared Starlark worker (created, not started, on first use)."""
        if self.starlark is None:
            from aiagent.agent.skills.backends.starlark import StarlarkWorker

            self.starlark = StarlarkWorker(self.services.limits, self._route)
        return self.starlark

    def prewarm_starlark(self) -> None:
        """Start the shared worker in the background, so a skill activated later loads in
        milliseconds."""
        if self.warming is None:
            import asyncio

            self.warming = asyncio.create_task(self.starlark_worker().warm())

    def _route(self, skill: str) -> SkillHost | None:
        active = self.active.get(skill.split(":", 1)[0])
        if active is not None:
            return active.host
        pending = self.manifests(skill)
        return SkillHost(self.services, pending) if pending is not None else None

    async def call(self, skill: str, kind: str, name: str, arg: Any) -> Any:
        active = self.active.get(skill)
        if active is None or active.backend is None:
            raise BackendError(f"skill {skill} is not active")
        return await active.backend.call(kind, name, arg)

    async def call_hook(self, skill: str, key: str, event: dict[str, Any]) -> Any:
        m = self.manifests(skill)
        config = self.config_of(m) if m is not None else {}
        return await self.call(skill, "hook", key, {**event, "config": config})

    async def run_workflow(self, info: WorkflowInfo | None, name: str, known: list[str],
                           input: Mapping[str, Any]) -> Any:
        if info is None:
            raise BackendError(f"no workflow named {name!r} (active workflows: {', '.join(sorted(known)) or 'none'})")
        if info.input_schema:
            import jsonschema

            problem = next(iter(jsonschema.Draft202012Validator(info.input_schema).iter_errors(dict(input))), None)
            if problem is not None:
                raise BackendError(f"workflow {name}: input: {problem.message}")
        return await self.call(info.skill, "workflow", name, dict(input))

    async def warming_done(self) -> None:
        """Stop a worker start still under way (before the skills are unloaded)."""
        if self.warming is not None and not self.warming.done():
            import asyncio

            self.warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.warming

    async def close(self) -> None:
        await self.warming_done()
        if self.starlark is not None:
            await self.starlark.close()
