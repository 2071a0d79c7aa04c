"""Which language server serves a file: chosen per language, started on first use, kept for
the agent's life (in the tools' shared state) and stopped with it.

A language without a server on PATH is not an error: the tools say which server to
install, and edits simply get no diagnostics. A server that fails to start is not retried
for a minute; one that died is started again on next use. Servers get the environment of
shell commands: no provider keys or other credentials.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.tools.lsp.client import LanguageServer, LspProblem
from aiagent.agent.tools.shell.env import NON_INTERACTIVE
from aiagent.infra.process.environment import without_secrets
from aiagent.infra.syntax.languages import classify

STATE_KEY = "lsp"
RETRY_AFTER = 60.0


@cache
def server_table() -> dict[str, dict[str, Any]]:
    data = resources.files("aiagent.agent.tools.lsp").joinpath("servers.toml").read_bytes()
    return tomllib.loads(data.decode())


def language_of(path: Path) -> str:

    return classify(path.name)


class LspManager:
    def __init__(self, root: Path, settings: dict[str, Any]) -> None:
        self.root = root.resolve()
        self.settings = settings
        self.servers: dict[str, LanguageServer] = {}
        self.failures: dict[str, tuple[float, str]] = {}
        self._lock = asyncio.Lock()

    @property
    def start_timeout(self) -> float:
        return float(self.settings.get("start_timeout", 10))

    def command(self, language: str) -> list[str] | None:
        """The server argv for ``language``: the user's choice, else the first on PATH."""
        configured = (self.settings.get("servers") or {}).get(language)
        if configured:
            return [str(a) for a in configured]
        for argv in server_table().get(language, {}).get("commands", []):
            found = _which(argv[0])
            if found:
                return [found, *argv[1:]]
        return None

    def missing(self, language: str) -> str:
        names = [c[0] for c in server_table().get(language, {}).get("commands", [])]
        if not names:
            return f"no language server is known for {language or 'this file type'}"
        return f"no language server for {language} on PATH (install one of: {', '.join(names)})"

    async def server_for(self, path: Path) -> LanguageServer:
        """The running server for ``path``'s language (started now if needed)."""
        language = language_of(path)
        async with self._lock:
            server = self.servers.get(language)
            if server is not None and server.alive:
                return server
            failed = self.failures.get(language)
            if failed and time.monotonic() - failed[0] < RETRY_AFTER:
                raise LspProblem(failed[1])
            argv = self.command(language)
            if argv is None:
                raise LspProblem(self.missing(language))
            entry = server_table().get(language, {})
            if entry.get("runs_project_code") and not self.settings.get("trusted"):
                raise LspProblem(f"{Path(argv[0]).name} runs the project's own code (build scripts, "
                                 "plugins): it starts only in a trusted folder (aiagent trust)")
            server = LanguageServer(entry.get("id", language), argv, self.root,
                                    settings=entry.get("settings"),
                                    request_timeout=float(self.settings.get("request_timeout", 10)))
            try:
                await server.start(self.start_timeout, _server_env())
            except LspProblem as exc:
                await server.stop()
                self.failures[language] = (time.monotonic(), str(exc))
                raise
            self.failures.pop(language, None)
            self.servers[language] = server
            return server

    async def close(self) -> None:
        servers, self.servers = list(self.servers.values()), {}
        await asyncio.gather(*(s.stop() for s in servers), return_exceptions=True)


def _which(program: str) -> str | None:
    """``program`` on PATH, else beside our own interpreter (a server installed in the same
    environment as aiagent)."""
    return shutil.which(program) or shutil.which(program, path=str(Path(sys.executable).parent))


def _server_env() -> dict[str, str]:

    return {**without_secrets(os.environ), **NON_INTERACTIVE}


def manager(state: dict[str, Any], root: Path, settings: dict[str, Any]) -> LspManager:
    found = state.get(STATE_KEY)
    if not isinstance(found, LspManager):
        found = state[STATE_KEY] = LspManager(root, settings)
    return found


async def shutdown(state: dict[str, Any]) -> None:
    found = state.pop(STATE_KEY, None)
    if isinstance(found, LspManager):
        await found.close()
