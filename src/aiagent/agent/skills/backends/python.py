"""The Python plugin backend (the spec's Go-plugin backend): trusted, in-process.

The manifest names ``module`` (a dotted path), ``entry_point`` (a name in the
``aiagent.agent.skills`` entry-point group) or ``entrypoint`` (a ``.py`` file in the skill
folder). The module's ``register(ctx)`` (or ``activate(ctx)``) registers handlers on an
:class:`aiagent.sdk.SkillContext`; ``invoke_skill`` can call its other public functions.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from types import ModuleType
from typing import Any

from aiagent.agent.skills.backends.base import BackendError, Registered
from aiagent.agent.skills.context import Registration, SkillContext
from aiagent.agent.skills.host import SkillHost

ENTRY_POINT_GROUP = "aiagent.agent.skills"


def import_skill_module(host: SkillHost) -> ModuleType:
    impl = host.m.implementation
    assert impl is not None
    try:
        if impl.module:
            return importlib.import_module(impl.module)
        if impl.entry_point:
            from importlib.metadata import entry_points

            found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == impl.entry_point]
            if not found:
                raise BackendError(f"skill {host.m.name}: no entry point {impl.entry_point!r} in group {ENTRY_POINT_GROUP}")
            loaded = found[0].load()
            return loaded if isinstance(loaded, ModuleType) else sys.modules[loaded.__module__]
        path = host.m.root / str(impl.entrypoint)
        name = f"aiagent_skill_{host.m.name.replace('-', '_')}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise BackendError(f"skill {host.m.name}: cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    except BackendError:
        raise
    except Exception as exc:  # noqa: BLE001 - a broken plugin is reported, not fatal
        raise BackendError(f"skill {host.m.name}: import failed: {type(exc).__name__}: {exc}") from None


async def call_handler(handler: Any, arg: Any) -> Any:
    if inspect.iscoroutinefunction(handler):
        return await handler(arg)
    result = await asyncio.to_thread(handler, arg)
    if inspect.isawaitable(result):
        return await result
    return result


class PythonBackend:
    def __init__(self, host: SkillHost, config: dict[str, Any]) -> None:
        self.host = host
        self.config = config
        self.module: ModuleType | None = None
        self.handlers: dict[tuple[str, str], Registration] = {}

    async def load(self) -> list[Registered]:
        self.module = import_skill_module(self.host)
        setup = getattr(self.module, "register", None) or getattr(self.module, "activate", None)
        if setup is None:
            raise BackendError(f"skill {self.host.m.name}: the module has no register(ctx) function")
        ctx = SkillContext(self.host, self.config)
        try:
            result = setup(ctx)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # noqa: BLE001
            raise BackendError(f"skill {self.host.m.name}: register failed: {type(exc).__name__}: {exc}") from None
        self.handlers = {(r.kind, r.name): r for r in ctx.registrations}
        return [Registered(r.kind, r.name, r.opts) for r in ctx.registrations]

    async def call(self, kind: str, name: str, arg: Any) -> Any:
        if kind == "function":
            fn = getattr(self.module, name, None) if not name.startswith("_") else None
            if not callable(fn):
                raise BackendError(f"skill {self.host.m.name}: no public function {name}")
            return await call_handler(fn, arg)
        reg = self.handlers.get((kind, name))
        if reg is None:
            raise BackendError(f"skill {self.host.m.name}: no {kind} named {name}")
        return await call_handler(reg.handler, arg)

    async def close(self) -> None:
        self.handlers.clear()
