"""One language server over stdio: initialise, keep documents in sync, ask, collect diagnostics.

The server is a child of the one process runner (its own process tree, ended with
everything it started) spoken to with JSON-RPC in LSP framing
(:mod:`aiagent.infra.process.jsonrpc`). Its answers are untrusted: every field read is checked,
and an answer that is not what the protocol promises counts as no answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from aiagent.infra.process.jsonrpc import PeerDied, PeerTimeout, RpcError, RpcPeer, spawn_peer

SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}


class LspProblem(Exception):
    """The server could not start, died, or did not answer (one line)."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    line: int  # 1-based
    column: int  # 1-based
    severity: str
    message: str
    source: str
    code: str

    def render(self) -> str:
        code = f" [{self.source}{' ' + self.code if self.code else ''}]" if self.source or self.code else ""
        message = " ".join(self.message.split())[:300]
        return f"{self.line}:{self.column} {self.severity}: {message}{code}"


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


def path_of(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def diagnostic_of(raw: Any) -> Diagnostic | None:
    if not isinstance(raw, dict):
        return None
    rng = raw.get("range")
    start = rng.get("start") if isinstance(rng, dict) else None
    if not isinstance(start, dict):
        return None
    line, character = start.get("line"), start.get("character")
    if not isinstance(line, int) or not isinstance(character, int):
        return None
    level = raw.get("severity")
    severity = SEVERITIES.get(level if isinstance(level, int) else 1, "error")
    code = raw.get("code")
    return Diagnostic(line + 1, character + 1, severity, str(raw.get("message", ""))[:2000],
                      str(raw.get("source") or "")[:40], str(code)[:40] if code is not None else "")


class LanguageServer:
    """A started server for one language in one workspace."""

    def __init__(self, language_id: str, argv: list[str], root: Path, *,
                 settings: dict[str, Any] | None = None, request_timeout: float = 10.0) -> None:
        self.language_id, self.argv, self.root = language_id, argv, root
        self.name = Path(argv[0]).name
        self.settings = settings or {}
        self.request_timeout = request_timeout
        self.peer: RpcPeer | None = None
        self.versions: dict[str, int] = {}
        self.diagnostics: dict[str, list[Diagnostic]] = {}
        self.capabilities: dict[str, Any] = {}
        self._published: dict[str, asyncio.Event] = {}

    @property
    def alive(self) -> bool:
        return self.peer is not None and not self.peer.closed

    async def start(self, timeout: float, env: dict[str, str]) -> None:
        try:
            self.peer = await spawn_peer(self.argv, cwd=str(self.root), env=env,
                                         handler=self._on_message, framing="headers")
        except OSError as exc:
            raise LspProblem(f"{self.name} did not start: {exc.strerror or exc}") from None
        params = {
            "processId": os.getpid(), "rootUri": uri_of(self.root), "rootPath": str(self.root),
            "workspaceFolders": [{"uri": uri_of(self.root), "name": self.root.name}],
            "capabilities": CLIENT_CAPABILITIES, "clientInfo": {"name": "aiagent"},
        }
        answer = await self._ask("initialize", params, timeout, starting=True)
        caps = answer.get("capabilities") if isinstance(answer, dict) else None
        self.capabilities = caps if isinstance(caps, dict) else {}
        self.peer.notify("initialized", {})
        if self.settings:
            self.peer.notify("workspace/didChangeConfiguration", {"settings": self.settings})

    async def _ask(self, method: str, params: dict[str, Any], timeout: float | None = None,
                   starting: bool = False) -> Any:
        if self.peer is None:
            raise LspProblem(f"{self.name} is not running")
        limit = timeout if timeout is not None else self.request_timeout
        try:
            return await self.peer.request(method, params, limit)
        except PeerTimeout:
            what = "initialise" if starting else f"answer {method}"
            raise LspProblem(f"{self.name} did not {what} within {limit:g}s") from None
        except PeerDied as exc:
            raise LspProblem(f"{self.name} stopped: {exc}") from None
        except RpcError as exc:
            raise LspProblem(f"{self.name} refused {method}: {str(exc)[:200]}") from None

    async def _on_message(self, method: str, params: dict[str, Any]) -> Any:
        if method == "textDocument/publishDiagnostics":
            self._publish(params)
        elif method == "workspace/configuration":
            items = params.get("items")
            return [self._section(item) for item in (items if isinstance(items, list) else [])]
        return None  # window/workDoneProgress/create, client/registerCapability, logs...

    def _section(self, item: Any) -> Any:
        section = item.get("section") if isinstance(item, dict) else None
        if not isinstance(section, str):
            return self.settings or None
        value: Any = self.settings
        for part in section.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def _publish(self, params: dict[str, Any]) -> None:
        uri = params.get("uri")
        raw = params.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(raw, list):
            return
        self.diagnostics[uri] = [d for d in map(diagnostic_of, raw[:1000]) if d is not None]
        self._published.setdefault(uri, asyncio.Event()).set()

    async def sync(self, path: Path) -> str:
        """Open ``path`` in the server, or send its new content; returns its URI."""
        assert self.peer is not None
        uri = uri_of(path)
        text = path.read_text(encoding="utf-8", errors="replace")
        self._published.setdefault(uri, asyncio.Event()).clear()
        version = self.versions.get(uri, 0) + 1
        self.versions[uri] = version
        if version == 1:
            self.peer.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": self.language_id, "version": version, "text": text}})
        else:
            self.peer.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
            self.peer.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        return uri

    async def diagnostics_for(self, path: Path, wait: float) -> list[Diagnostic]:
        """The diagnostics the server publishes for the current content of ``path``."""
        uri = await self.sync(path)
        published = self._published[uri]
        deadline = asyncio.get_running_loop().time() + wait
        while not published.is_set() and self.alive:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(published.wait(), min(left, 0.1))
        if not published.is_set() and not self.alive:
            note = self.peer.death_note() if self.peer is not None else "it was stopped"
            raise LspProblem(f"{self.name} stopped: {note}")
        return list(self.diagnostics.get(uri, []))

    async def request(self, method: str, path: Path, params: dict[str, Any]) -> Any:
        uri = await self.sync(path)
        return await self._ask(method, {"textDocument": {"uri": uri}, **params})

    async def workspace_symbols(self, query: str) -> Any:
        return await self._ask("workspace/symbol", {"query": query})

    async def stop(self) -> None:
        peer, self.peer = self.peer, None
        if peer is None:
            return
        if not peer.closed:
            with contextlib.suppress(Exception):
                await peer.request("shutdown", {}, 2.0)
            peer.notify("exit", {})
        await peer.close(grace=1.0)


CLIENT_CAPABILITIES: dict[str, Any] = {
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": False},
        "publishDiagnostics": {"relatedInformation": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "definition": {"linkSupport": False},
        "references": {},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
    },
    "workspace": {"symbol": {}, "configuration": True, "workspaceFolders": True},
    "window": {"workDoneProgress": False},
}
