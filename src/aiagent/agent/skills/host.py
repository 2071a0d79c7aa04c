"""Host functions: what a skill may ask aiagent to do (spec Appendix F / §4.8).

Every function checks the calling skill's declared permission before it acts, counts
rate-limited uses (LLM calls, commands, fetches) per turn, and keeps file access inside
the project (and inside a permission's path scope, like ``file:read:docs/``). The Starlark
worker and process skills reach these over JSON-RPC (``host/<name>``); Python plugins
through :class:`aiagent.sdk.SkillContext`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.agent.skills.execution import run_command
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.permissions import (
    Limits,
    PermissionDenied,
    TurnCounter,
    base_permission,
    command_refusal,
    env_readable,
    in_scope,
    path_scopes,
    scrubbed_env,
)
from aiagent.agent.skills.triggers import scan_project
from aiagent.infra.process.git import GitError, prepare_async

MAX_READ = 2 * 1024 * 1024
MAX_OUTPUT = 256 * 1024
MAX_MATCHES = 1000

LLM = Callable[[str, Mapping[str, Any]], Awaitable[str]]
Invoker = Callable[[str, str, str, Any], Awaitable[Any]]  # caller, skill, function, args
LogSink = Callable[[str, str, str], None]  # skill, level, message


class HostError(Exception):
    """A host function failed in a way the skill should read."""


@dataclass(slots=True)
class HostServices:
    """What the host functions need from the running agent."""

    root: Path
    limits: Limits = field(default_factory=Limits)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    llm: LLM | None = None
    invoke: Invoker | None = None
    log: LogSink = lambda skill, level, msg: None
    language: str = ""
    counter: TurnCounter | None = None
    skill_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root = Path(os.path.realpath(self.root))
        if self.counter is None:
            self.counter = TurnCounter(self.limits)


def limited_env(services: HostServices, declared: tuple[str, ...], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a skill's child process gets: the basics (``PATH``, ``HOME``,
    ``LANG``…) and the variables the manifest names with ``env:read:NAME``; never API
    keys, tokens or other secrets (``skills/data/environment.toml``)."""
    env = scrubbed_env(services.env, declared)
    env.setdefault("PATH", os.defpath)
    env.update(extra or {})
    return env


class SkillHost:
    """The host functions as seen by one skill."""

    def __init__(self, services: HostServices, manifest: Manifest) -> None:
        self.s = services
        self.m = manifest
        self.grants = {base_permission(p) for p in manifest.permissions}

    # ---- dispatch ------------------------------------------------------------------

    async def call(self, name: str, args: list[Any], kwargs: Mapping[str, Any]) -> Any:
        fn = getattr(self, f"fn_{name}", None)
        if fn is None:
            raise HostError(f"unknown host function {name}")
        try:
            return await fn(*args, **dict(kwargs))
        except TypeError as exc:
            raise HostError(f"{name}: {exc}") from None

    def require(self, perm: str) -> None:
        if perm not in self.grants:
            raise PermissionDenied(f"skill {self.m.name} lacks permission {perm} (declare it in {self.m.file.name} under permissions)")
        assert self.s.counter is not None
        self.s.counter.take(self.m.name, perm)

    def inside(self, raw: str) -> Path:
        target = Path(os.path.realpath(self.s.root / os.path.expanduser(str(raw))))
        if not target.is_relative_to(self.s.root):
            raise PermissionDenied(f"skill {self.m.name}: {raw} is outside the project")
        return target

    def path(self, raw: str, kind: str) -> Path:
        """Resolve ``raw`` inside the project and inside ``kind``'s path scopes."""
        self.require(kind)
        target = self.inside(raw)
        rel = target.relative_to(self.s.root).as_posix()
        scopes = path_scopes(self.m.permissions, kind) or []
        if scopes and not any(in_scope(rel, s) for s in scopes):
            raise PermissionDenied(f"skill {self.m.name}: {raw} is outside its {kind} scope ({', '.join(scopes)})")
        return target

    # ---- files ---------------------------------------------------------------------

    async def fn_read_file(self, path: str) -> str:
        target = self.path(path, "file:read")
        try:
            return target.read_bytes()[:MAX_READ].decode("utf-8", errors="replace")
        except FileNotFoundError:
            raise HostError(f"read_file: {path}: no such file") from None
        except OSError as exc:
            raise HostError(f"read_file: {path}: {exc.strerror}") from None

    async def fn_write_file(self, path: str, content: str) -> None:
        target = self.path(path, "file:write")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(str(content), encoding="utf-8")
        except OSError as exc:
            raise HostError(f"write_file: {path}: {exc.strerror}") from None

    async def fn_list_dir(self, path: str = ".") -> list[str]:
        target = self.path(path, "file:read")
        try:
            return sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir())
        except OSError as exc:
            raise HostError(f"list_dir: {path}: {exc.strerror}") from None

    async def fn_search_files(self, pattern: str) -> list[str]:
        import pathspec


        self.require("file:read")

        import asyncio  # lazily: listing skills must not pay for it

        facts = await asyncio.to_thread(scan_project, self.s.root)
        spec = pathspec.PathSpec.from_lines("gitignore", [pattern])
        scopes = path_scopes(self.m.permissions, "file:read") or []
        hits = [f for f in facts.files if spec.match_file(f) and (not scopes or any(in_scope(f, s) for s in scopes))]
        return hits[:MAX_MATCHES]

    async def fn_load_file(self, path: str) -> str:
        root = Path(os.path.realpath(self.m.root))
        target = Path(os.path.realpath(root / str(path)))
        if not target.is_relative_to(root):
            raise PermissionDenied(f"load_file: {path} is outside the skill folder")
        try:
            return target.read_bytes()[:MAX_READ].decode("utf-8", errors="replace")
        except OSError:
            raise HostError(f"load_file: {path}: no such file in skill {self.m.name}") from None

    # ---- commands, network, LLM ----------------------------------------------------

    async def fn_exec(self, cmd: str, *args: Any, cwd: str | None = None, timeout: float | None = None) -> dict[str, Any]:
        self.require("shell:exec")
        argv = [str(cmd), *map(str, args)]
        refusal = command_refusal(self.m.permissions, argv, "shell:exec")
        if refusal:
            raise PermissionDenied(f"skill {self.m.name}: exec: {refusal}")
        folder = self.s.root if cwd is None else self.inside(cwd)
        limit = min(float(timeout or self.s.limits.shell_timeout), self.s.limits.shell_timeout)
        env = limited_env(self.s, self.m.permissions)

        return await run_command(argv, Path(folder), env, limit, MAX_OUTPUT)

    async def fn_fetch(self, url: str, method: str = "GET", headers: Mapping[str, str] | None = None,
                       body: str | None = None, timeout: float | None = None) -> dict[str, Any]:
        self.require("net:fetch")
        if not re.match(r"^https?://", str(url)):
            raise HostError(f"fetch: {url}: only http and https URLs")
        import httpx

        limit = min(float(timeout or self.s.limits.fetch_timeout), self.s.limits.fetch_timeout)
        try:
            async with httpx.AsyncClient(timeout=limit, follow_redirects=True) as client:
                response = await client.request(method.upper(), url, headers=dict(headers or {}), content=body)
        except httpx.HTTPError as exc:
            raise HostError(f"fetch: {url}: {type(exc).__name__}: {exc}") from None
        text = response.content[:MAX_READ].decode(response.encoding or "utf-8", errors="replace")
        return {"status": response.status_code, "body": text, "headers": dict(response.headers)}

    async def fn_llm_complete(self, prompt: str, **opts: Any) -> str:
        self.require("llm:call")
        if self.s.llm is None:
            raise HostError("llm_complete: no model is available in this run")
        return await self.s.llm(str(prompt), opts)

    async def fn_llm_json(self, prompt: str, schema: Any = None, **opts: Any) -> Any:
        text = await self.fn_llm_complete(
            f"{prompt}\n\nAnswer with JSON only, no prose"
            + (f", shaped like this: {json.dumps(schema)}" if schema is not None else "") + ".",
            **opts,
        )
        cleaned = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
        try:
            return json.loads(cleaned)
        except json.JSONDecodeError:
            raise HostError(f"llm_json: the model did not answer with JSON: {text[:200]}") from None

    # ---- git, environment, other skills --------------------------------------------

    async def _git(self, *args: str) -> str:
        self.require("git:read")
        refusal = command_refusal(self.m.permissions, ["git", *args], "git:read")
        if refusal:
            raise PermissionDenied(f"skill {self.m.name}: git {args[0]}: {refusal}")

        try:
            call = await prepare_async(self.s.root, args[0], *args[1:], env=limited_env(self.s, ()))
        except GitError as err:
            raise HostError(f"git {args[0]}: {err}") from None
        out = await run_command(call.argv, call.cwd, call.env, self.s.limits.shell_timeout, MAX_READ)
        if out["exit_code"] != 0:
            raise HostError(f"git {args[0]}: {out['stderr'].strip()[:300] or 'failed'}")
        return str(out["stdout"])

    async def fn_git_diff(self, base: str = "HEAD", head: str = "") -> str:
        revs = [a for a in (str(base), str(head)) if a]
        if any(r.startswith("-") for r in revs):
            raise PermissionDenied(f"skill {self.m.name}: git_diff: {revs[0]!r} is an option, not a revision")
        return await self._git("diff", *revs, "--")

    async def fn_git_log(self, n: int = 10) -> list[dict[str, str]]:
        out = await self._git("log", f"-{int(n)}", "--format=%H%x1f%an%x1f%aI%x1f%s")
        keys = ("hash", "author", "date", "subject")
        return [dict(zip(keys, line.split("\x1f"), strict=False)) for line in out.splitlines() if line]

    async def fn_git_status(self) -> list[dict[str, str]]:
        out = await self._git("status", "--porcelain=v1")
        return [{"status": line[:2].strip(), "path": line[3:]} for line in out.splitlines() if line]

    async def fn_env(self, key: str) -> str | None:
        self.require("env:read")
        if not env_readable(self.m.permissions, str(key)):
            raise PermissionDenied(f"skill {self.m.name}: env: {key} is not declared (env:read:{key}) "
                                   "or is a secret, which skills never read")
        return self.s.env.get(str(key))

    async def fn_invoke_skill(self, name: str, function: str, args: Any = None) -> Any:
        self.require("skill:invoke")
        if self.s.invoke is None:
            raise HostError("invoke_skill: no other skills are available")
        return await self.s.invoke(self.m.name, str(name), str(function), args or {})

    async def fn_project_root(self) -> str:
        return str(self.s.root)

    async def fn_project_language(self) -> str:
        return self.s.language

    async def fn_config(self) -> dict[str, Any]:
        return {**self.m.config, **dict(self.s.skill_config.get(self.m.name, {}))}

    async def fn_log(self, level: str, message: str = "") -> None:
        self.s.log(self.m.name, str(level), str(message))

