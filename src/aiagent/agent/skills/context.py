"""What a Python skill's ``register(ctx)`` is given: :class:`SkillContext`, and the values
its methods return. Skill authors import these from :mod:`aiagent.sdk`, the public facade.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiagent.agent.skills.host import SkillHost

Handler = Callable[[Any], Any] | Callable[[Any], Awaitable[Any]]


class SkillError(Exception):
    """A failure the model should read (raised from a tool or workflow handler)."""


@dataclass(slots=True)
class ExecResult:
    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool = False


@dataclass(slots=True)
class FetchResponse:
    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(slots=True)
class HookResult:
    """What a hook returns. Leave a field unset to change nothing."""

    tool_args: dict[str, Any] | None = None
    tool_result: str | None = None
    response: str | None = None
    inject_prompt: str = ""
    cancel: bool = False
    reason: str = ""


def hook_result(**fields: Any) -> HookResult:
    """``hook_result(modified_response=...)``, ``hook_result(cancel=True, reason=...)``…"""
    aliases = {"modified_response": "response", "modified_args": "tool_args", "modified_result": "tool_result"}
    return HookResult(**{aliases.get(k, k): v for k, v in fields.items()})


def error(message: str) -> dict[str, str]:
    """Return this from a handler to report a failure the model reads."""
    return {"__error__": str(message)}


@dataclass(slots=True)
class Registration:
    kind: str  # tool | hook | workflow | scanner
    name: str
    handler: Handler
    opts: dict[str, Any] = field(default_factory=dict)


class SkillContext:
    """What a Python skill may use. Methods that act check the skill's permissions."""

    def __init__(self, host: SkillHost, config: Mapping[str, Any] | None = None) -> None:
        self._host = host
        self.name = host.m.name
        self.root = host.m.root
        self.config: dict[str, Any] = dict(config or {})
        self.registrations: list[Registration] = []

    # ---- registering ---------------------------------------------------------------

    def register_tool(self, name: str, handler: Handler, *, description: str = "",
                      input_schema: dict[str, Any] | None = None, requires_approval: bool = False) -> None:
        self.registrations.append(Registration("tool", name, handler, {
            "description": description, "input_schema": input_schema, "requires_approval": requires_approval}))

    def register_hook(self, phase: str, handler: Handler, *, priority: int = 100) -> None:
        key = f"{phase}#{sum(r.kind == 'hook' for r in self.registrations)}"
        self.registrations.append(Registration("hook", key, handler, {"phase": phase, "priority": priority}))

    def register_workflow(self, name: str, handler: Handler, *, description: str = "",
                          input_schema: dict[str, Any] | None = None) -> None:
        self.registrations.append(Registration("workflow", name, handler, {
            "description": description, "input_schema": input_schema}))

    def register_scanner(self, name: str, handler: Handler, *, description: str = "") -> None:
        self.registrations.append(Registration("scanner", name, handler, {"description": description}))

    # ---- acting (permission-checked) -----------------------------------------------

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return await self._host.call(name, list(args), kwargs)

    async def read_file(self, path: str) -> str:
        return str(await self._call("read_file", path))

    async def write_file(self, path: str, content: str) -> None:
        await self._call("write_file", path, content)

    async def list_dir(self, path: str = ".") -> list[str]:
        return list(await self._call("list_dir", path))

    async def search_files(self, pattern: str) -> list[str]:
        return list(await self._call("search_files", pattern))

    async def exec(self, cmd: str, *args: str, cwd: str | None = None, timeout: float | None = None) -> ExecResult:
        out = await self._call("exec", cmd, *args, cwd=cwd, timeout=timeout)
        return ExecResult(out["stdout"], out["stderr"], out["exit_code"], out["timed_out"])

    async def fetch(self, url: str, **opts: Any) -> FetchResponse:
        out = await self._call("fetch", url, **opts)
        return FetchResponse(out["status"], out["body"], out["headers"])

    async def llm_complete(self, prompt: str, **opts: Any) -> str:
        return str(await self._call("llm_complete", prompt, **opts))

    async def llm_json(self, prompt: str, schema: Any = None, **opts: Any) -> Any:
        return await self._call("llm_json", prompt, schema, **opts)

    async def git_diff(self, base: str = "HEAD", head: str = "") -> str:
        return str(await self._call("git_diff", base, head))

    async def git_log(self, n: int = 10) -> list[dict[str, str]]:
        return list(await self._call("git_log", n))

    async def git_status(self) -> list[dict[str, str]]:
        return list(await self._call("git_status"))

    async def env(self, key: str) -> str | None:
        value = await self._call("env", key)
        return None if value is None else str(value)

    async def invoke_skill(self, name: str, function: str, args: Any = None) -> Any:
        return await self._call("invoke_skill", name, function, args or {})

    async def project_root(self) -> str:
        return str(await self._call("project_root"))

    async def project_language(self) -> str:
        return str(await self._call("project_language"))

    async def load_file(self, path: str) -> str:
        return str(await self._call("load_file", path))

    def log(self, level: str, message: str) -> None:
        self._host.s.log(self.name, level, message)
