"""The external-process backend: a skill in any language, speaking JSON-RPC 2.0 on stdio.

aiagent → skill: ``initialize`` (answer: the tools, hooks, workflows and scanners it
provides), ``tool/call``, ``hook/call``, ``workflow/run``, ``scanner/run``,
``function/call``, ``shutdown``. Skill → aiagent: ``host/<function>`` with
``{"args": [...], "kwargs": {...}}`` (the SDK functions of Appendix F, permission-checked)
and the ``log`` notification. The child gets only the environment its permissions allow;
with bubblewrap available it runs in its own user and PID namespaces with no capabilities,
without network unless it declares ``net:fetch``,
without the project unless it declares ``file:read``, and read-only unless ``file:write``.
A crash is reported and the process is started again on the next call.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from aiagent.agent.skills.backends.base import BackendError, Registered, registrations
from aiagent.agent.skills.host import HostError, SkillHost, limited_env
from aiagent.agent.skills.permissions import PermissionDenied, base_permission
from aiagent.infra.process.jsonrpc import (
    PeerDied,
    PeerTimeout,
    RpcError,
    RpcPeer,
    spawn_peer,
)
from aiagent.infra.sandbox import bubblewrap, detect
from aiagent.infra.sandbox.bubblewrap import runtime_paths

PROTOCOL_VERSION = "1"
INIT_TIMEOUT = 10.0
METHODS = {"tool": "tool/call", "hook": "hook/call", "workflow": "workflow/run", "scanner": "scanner/run", "function": "function/call"}


def sandbox_prefix(mode: str, host: SkillHost) -> list[str]:
    """The bubblewrap command line that confines the skill, or [] (``mode``: auto | off |
    required). The skill gets its own user and PID namespaces (it cannot see the agent's
    ``/proc/<pid>/environ``), no capabilities and a private /tmp."""
    if mode == "off":
        return []

    info = detect("bubblewrap") if sys.platform.startswith("linux") else None
    if info is None or not info.available:
        if mode == "required":
            why = info.detail if info is not None else "bubblewrap exists only on Linux"
            raise BackendError(f"skill {host.m.name}: [skills] process_sandbox = \"required\" but {why}")
        return []
    grants = host.grants
    project, skill_root = str(host.s.root), str(Path(os.path.realpath(host.m.root)))
    args = [bubblewrap.executable(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", *bubblewrap.namespace_args()]
    if "net:fetch" not in grants:
        args.append("--unshare-net")
    if "file:write" in grants:
        args += ["--bind", project, project]
    elif "file:read" in grants:
        args += ["--ro-bind", project, project]
    else:
        args += ["--tmpfs", project]
    for path in runtime_paths():  # the interpreter may live under /tmp or the project
        args += ["--ro-bind", path, path]
    args += ["--ro-bind", skill_root, skill_root, "--chdir", skill_root]
    return [*args, "--"]


class ProcessBackend:
    def __init__(self, host: SkillHost, config: dict[str, Any], call_timeout: float, sandbox: str = "auto") -> None:
        self.host = host
        self.m = host.m
        self.config = config
        self.call_timeout = call_timeout
        self.sandbox = sandbox
        self.peer: RpcPeer | None = None

    async def _handle(self, method: str, params: dict[str, Any]) -> Any:
        if method == "log":
            self.host.s.log(self.m.name, str(params.get("level", "info")), str(params.get("message", "")))
            return None
        if not method.startswith("host/"):
            raise RpcError(f"unknown method {method}", -32601)
        try:
            return await self.host.call(method[5:], list(params.get("args") or []), dict(params.get("kwargs") or {}))
        except (PermissionDenied, HostError) as exc:
            raise RpcError(str(exc)) from None

    def _argv(self) -> list[str]:
        assert self.m.implementation is not None
        argv = list(self.m.implementation.command)
        if argv and argv[0] in ("python", "python3"):
            argv[0] = sys.executable  # the interpreter aiagent runs on
        return [*sandbox_prefix(self.sandbox, self.host), *argv]

    async def _start(self) -> RpcPeer:
        env = limited_env(self.host.s, self.m.permissions, {
            "AIAGENT_SKILL": self.m.name, "AIAGENT_PROJECT_ROOT": str(self.host.s.root), "PYTHONUNBUFFERED": "1"})
        try:
            peer = await spawn_peer(self._argv(), cwd=str(self.m.root), env=env, handler=self._handle)
        except OSError as exc:
            raise BackendError(f"skill {self.m.name}: cannot start {' '.join(self.m.implementation.command)}: {exc.strerror}") from None  # type: ignore[union-attr]
        self.peer = peer
        return peer

    async def _request(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        peer = self.peer if self.peer is not None and not self.peer.closed else None
        if peer is None:
            peer = await self._start()
            if method != "initialize":
                await self._initialize(peer)
        try:
            return await peer.request(method, params, timeout)
        except RpcError as exc:
            raise BackendError(f"skill {self.m.name}: {exc}") from None
        except PeerTimeout:
            await self._kill()
            raise BackendError(f"skill {self.m.name}: {method} took longer than {timeout:g}s; the process was stopped") from None
        except PeerDied as exc:
            await self._kill()
            raise BackendError(f"skill {self.m.name}: the skill process crashed ({exc})") from None

    async def _initialize(self, peer: RpcPeer) -> Any:
        params = {
            "protocol_version": PROTOCOL_VERSION, "skill": self.m.name, "project_root": str(self.host.s.root),
            "permissions": [base_permission(p) for p in self.m.permissions], "config": self.config,
        }
        try:
            return await peer.request("initialize", params, INIT_TIMEOUT)
        except (PeerDied, PeerTimeout, RpcError) as exc:
            await self._kill()
            raise BackendError(f"skill {self.m.name}: initialize failed: {exc}") from None

    async def load(self) -> list[Registered]:
        peer = await self._start()
        result = await self._initialize(peer)
        if not isinstance(result, dict):
            raise BackendError(f"skill {self.m.name}: initialize must answer an object")
        items: list[dict[str, Any]] = []
        for kind, key in (("tool", "tools"), ("hook", "hooks"), ("workflow", "workflows"), ("scanner", "scanners")):
            for entry in result.get(key) or []:
                if not isinstance(entry, dict):
                    raise BackendError(f"skill {self.m.name}: initialize: {key} entries must be objects")
                name = entry.get("name") or (f"{entry.get('phase')}#{len(items)}" if kind == "hook" else None)
                items.append({"kind": kind, "name": name, "opts": entry})
        return registrations(items, f"skill {self.m.name}")

    async def call(self, kind: str, name: str, arg: Any) -> Any:
        method = METHODS[kind]
        key = {"tool": "arguments", "hook": "event", "workflow": "input", "scanner": "input", "function": "args"}[kind]
        return await self._request(method, {"name": name, key: arg}, self.call_timeout)

    async def _kill(self) -> None:
        peer, self.peer = self.peer, None
        if peer is not None:
            await peer.kill()

    async def close(self) -> None:
        peer, self.peer = self.peer, None
        if peer is None:
            return
        if not peer.closed:
            peer.notify("shutdown", {})
        await peer.close(grace=1.0)
