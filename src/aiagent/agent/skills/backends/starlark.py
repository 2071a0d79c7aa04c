"""The Starlark backend: skills' ``.star`` files evaluated in one shared worker process.

The worker (:mod:`aiagent.agent.skills.backends.starlark_worker`) runs with an address-space
limit; each call has a computation budget (checked by the evaluator) and a wall-clock
limit enforced here by killing the worker. A worker that dies (out of memory, killed) is
replaced on the next call and the loaded skills are evaluated again. Host functions the
skill calls arrive as ``host/<name>`` requests and run with that skill's permissions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from aiagent.agent.skills.backends.base import BackendError, Registered, registrations
from aiagent.agent.skills.host import HostError, SkillHost
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.permissions import Limits, PermissionDenied
from aiagent.infra.process.jsonrpc import (
    PeerDied,
    PeerTimeout,
    RpcError,
    RpcPeer,
    spawn_peer,
)

WORKER = "aiagent.agent.skills.backends.starlark_worker"
GRACE = 5.0  # seconds past the budget before the worker is killed


def clean_error(message: str) -> str:
    """A Starlark error as one line: ``file:line:col: what``."""
    lines = message.strip().splitlines()
    what = next((ln.split("error:", 1)[1].strip() for ln in lines if ln.strip().startswith("error:")), None)
    where = next((ln.strip()[4:].strip() for ln in lines if ln.strip().startswith("-->")), "")
    if what is None:
        return (lines[-1] if lines else message).strip()[:400]
    what = re.sub(r"^Error in \w+: ", "", what)
    return f"{where}: {what}" if where and not where.startswith("<sdk>") else what


class StarlarkWorker:
    """The shared worker; started on first use, restarted after it dies."""

    def __init__(self, limits: Limits, route: Callable[[str], SkillHost | None]) -> None:
        self.limits = limits
        self.route = route
        self.peer: RpcPeer | None = None
        self.sources: dict[str, tuple[str, str]] = {}  # skill -> (filename, source)
        self._lock = asyncio.Lock()

    async def _handle(self, method: str, params: dict[str, Any]) -> Any:
        if not method.startswith("host/"):
            raise RpcError(f"unknown method {method}", -32601)
        host = self.route(str(params.get("skill")))
        if host is None:
            raise RpcError(f"skill {params.get('skill')} is not active")
        try:
            return await host.call(method[5:], list(params.get("args") or []), dict(params.get("kwargs") or {}))
        except (PermissionDenied, HostError) as exc:
            raise RpcError(str(exc)) from None

    async def _peer(self) -> RpcPeer:
        async with self._lock:
            if self.peer is not None and not self.peer.closed:
                return self.peer
            env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH", "SYSTEMROOT")}
            env["AIAGENT_STARLARK_MEMORY_MB"] = str(self.limits.starlark_memory_mb)
            self.peer = await spawn_peer([sys.executable, "-I", "-m", WORKER], cwd="/", env=env, handler=self._handle)
            for skill, (filename, source) in list(self.sources.items()):
                await self._request("load", {"skill": skill, "filename": filename, "source": source})
            return self.peer

    async def warm(self) -> None:
        """Start the worker now (in the background); a failure waits for first use."""
        with contextlib.suppress(Exception):
            await self._peer()

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.peer is not None
        budget = self.limits.starlark_budget
        return await self.peer.request(method, {**params, "budget": budget}, budget + GRACE)

    async def request(self, skill: str, method: str, params: dict[str, Any]) -> Any:
        try:
            await self._peer()
            return await self._request(method, {"skill": skill, **params})
        except RpcError as exc:
            raise BackendError(f"skill {skill}: {clean_error(str(exc))}") from None
        except PeerTimeout:
            await self.restart()
            raise BackendError(f"skill {skill}: stopped: ran past its time limit of {self.limits.starlark_budget:g}s") from None
        except PeerDied as exc:
            await self.restart()
            raise BackendError(
                f"skill {skill}: the Starlark worker stopped ({exc}); a skill that allocates without "
                f"bound hits the {self.limits.starlark_memory_mb} MB limit"
            ) from None

    async def load(self, skill: str, filename: str, source: str) -> list[Registered]:
        result = await self.request(skill, "load", {"filename": filename, "source": source})
        self.sources[skill] = (filename, source)
        return registrations(result.get("registrations") if isinstance(result, dict) else None, f"skill {skill}")

    async def unload(self, skill: str) -> None:
        self.sources.pop(skill, None)
        if self.peer is not None and not self.peer.closed:
            self.peer.notify("unload", {"skill": skill})

    async def restart(self) -> None:
        peer, self.peer = self.peer, None
        if peer is not None:
            await peer.kill()

    async def close(self) -> None:
        peer, self.peer = self.peer, None
        if peer is not None:
            await peer.close()


class StarlarkBackend:
    def __init__(self, manifest: Manifest, worker: StarlarkWorker) -> None:
        self.m = manifest
        self.worker = worker

    async def load(self) -> list[Registered]:
        assert self.m.implementation is not None and self.m.implementation.entrypoint
        path = self.m.root / self.m.implementation.entrypoint
        try:
            source = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BackendError(f"skill {self.m.name}: cannot read {path}: {exc}") from None
        return await self.worker.load(self.m.name, self.m.implementation.entrypoint, source)

    async def call(self, kind: str, name: str, arg: Any) -> Any:
        return await self.worker.request(self.m.name, "call", {"kind": kind, "name": name, "args": arg})

    async def close(self) -> None:
        await self.worker.unload(self.m.name)
