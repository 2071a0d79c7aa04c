"""Where MCP servers are configured, read into :class:`ServerConfig`.

Sources, first wins on a name: ``[mcp.servers.NAME]`` in the settings (an untrusted
project's ``.agent/config.toml`` cannot add any: ``config/trust.toml``), the project's
``.mcp.json`` (only in a trusted folder), then the user-level files of
``[mcp] user_files`` (Claude Code's ``~/.claude.json`` by default) and
``~/.config/aiagent/mcp.json``. The JSON files use Claude Code's format::

    {"mcpServers": {"NAME": {"command": "npx", "args": ["-y", "pkg"], "env": {"K": "${K}"}},
                    "remote": {"type": "http", "url": "https://…", "headers": {…}}}}

``${VAR}`` and ``${VAR:-default}`` are expanded in command, args, env, cwd, url and headers.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.infra.config.paths import config_dir, project_root

SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_STDIO_KEYS = {"type", "command", "args", "env", "cwd"}
_HTTP_KEYS = {"type", "url", "headers"}
_OWN_KEYS = {"enabled", "startup_timeout", "call_timeout", "bearer_token_env",
             "bearer_token_keyring", "description"}


class McpConfigError(ValueError):
    """A server entry that cannot be used: one line naming the file and the field."""

    exit_code = 2


@dataclass(slots=True)
class ServerConfig:
    name: str
    transport: str  # stdio | http | sse
    source: str  # where it was configured (a file, or "[mcp.servers]")
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    bearer_token_env: str = ""
    bearer_token_keyring: str = ""
    enabled: bool = True
    untrusted: bool = False  # from an untrusted project's .mcp.json (listed, never started)
    startup_timeout: float | None = None
    call_timeout: float | None = None

    @property
    def starts_process(self) -> bool:
        return self.transport == "stdio"

    def describe(self) -> str:
        if self.starts_process:
            return " ".join([self.command, *self.args])
        return self.url


@dataclass(slots=True)
class Discovered:
    servers: dict[str, ServerConfig]
    problems: list[str]  # one line each: a file or entry that was skipped


def discover(settings: Any, *, show_untrusted: bool = False) -> Discovered:
    """Every configured server; broken files and entries become ``problems``. With
    ``show_untrusted`` an untrusted project's ``.mcp.json`` is read too, its servers
    disabled (for ``aiagent mcp list``)."""
    env: Mapping[str, str] = settings.env
    found: dict[str, ServerConfig] = {}
    problems: list[str] = []
    table = settings.mcp.servers
    for name, entry in table.items():
        _add(found, problems, name, entry, "[mcp.servers]", env)
    trusted = settings.trust is None or settings.trust.trusted
    files = [(p, True) for p in user_files(settings)]
    if (trusted or show_untrusted) and settings.mcp.project_file:
        files.insert(0, (project_file(settings.workspace), False))
    for path, is_user in files:
        try:
            entries = read_json_servers(path, user_level=is_user)
        except McpConfigError as exc:
            problems.append(str(exc))
            continue
        for name, entry in entries.items():
            _add(found, problems, name, entry, str(path), env)
            if not (trusted or is_user) and name in found and found[name].source == str(path):
                found[name].enabled, found[name].untrusted = False, True
                found[name].source += " (folder not trusted: aiagent trust)"
    return Discovered(found, problems)


def project_file(workspace: Path) -> Path:

    return project_root(workspace) / ".mcp.json"


def user_files(settings: Any) -> list[Path]:

    env = settings.env
    listed = [Path(os.path.expanduser(str(p))) for p in settings.mcp.user_files]
    return [*listed, config_dir(env) / "mcp.json"]


def read_json_servers(path: Path, *, user_level: bool = False) -> dict[str, Any]:
    """The ``mcpServers`` table of a JSON file; {} when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"{path}: cannot be read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg})") from None
    if not isinstance(data, dict):
        raise McpConfigError(f"{path}: expected a JSON object with \"mcpServers\"")
    servers = data.get("mcpServers", {} if user_level else None)
    if servers is None:
        raise McpConfigError(f"{path}: no \"mcpServers\" object")
    if not isinstance(servers, dict):
        raise McpConfigError(f"{path}: \"mcpServers\" must be an object of servers by name")
    return servers


def _add(found: dict[str, ServerConfig], problems: list[str], name: str, entry: Any,
         source: str, env: Mapping[str, str]) -> None:
    if name in found:
        return
    try:
        found[name] = parse_entry(name, entry, source, env)
    except McpConfigError as exc:
        problems.append(str(exc))


def parse_entry(name: str, entry: Any, source: str, env: Mapping[str, str]) -> ServerConfig:
    """One server entry (TOML table or ``.mcp.json`` object) checked and expanded."""
    where = f"{source}: server {name!r}"
    if not SERVER_NAME.match(name) or "__" in name:
        raise McpConfigError(f"{where}: a server name is 1-32 letters, digits, '-' or '_' "
                             "(no '__', it separates server and tool)")
    if not isinstance(entry, dict):
        raise McpConfigError(f"{where}: expected an object")
    kind = entry.get("type") or ("stdio" if "command" in entry else "http" if "url" in entry else "")
    if kind == "streamable-http":
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        raise McpConfigError(f"{where}: needs \"command\" (stdio) or \"url\" (http); "
                             f"type {kind!r} is not stdio, http or sse")
    allowed = (_STDIO_KEYS if kind == "stdio" else _HTTP_KEYS) | _OWN_KEYS
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise McpConfigError(f"{where}: unknown key {unknown[0]!r} for a {kind} server")
    config = ServerConfig(name, kind, source)
    _fill(config, entry, where, env)
    if kind == "stdio" and not config.command:
        raise McpConfigError(f"{where}: \"command\" must be a non-empty string")
    if kind != "stdio" and not re.match(r"^https?://", config.url):
        raise McpConfigError(f"{where}: \"url\" must start with http:// or https://")
    return config


def _fill(config: ServerConfig, entry: dict[str, Any], where: str, env: Mapping[str, str]) -> None:
    def text(key: str) -> str:
        value = entry.get(key, "")
        if not isinstance(value, str):
            raise McpConfigError(f"{where}: \"{key}\" must be a string")
        return expand(value, env)

    def table(key: str) -> dict[str, str]:
        value = entry.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise McpConfigError(f"{where}: \"{key}\" must be an object of strings")
        return {str(k): expand(v, env) for k, v in value.items()}

    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise McpConfigError(f"{where}: \"args\" must be a list of strings")
    config.command, config.cwd, config.url = text("command"), text("cwd"), text("url")
    config.args = [expand(a, env) for a in args]
    config.env, config.headers = table("env"), table("headers")
    config.bearer_token_env = text("bearer_token_env")
    config.bearer_token_keyring = text("bearer_token_keyring")
    config.enabled = entry.get("enabled", True) is not False
    for key in ("startup_timeout", "call_timeout"):
        value = entry.get(key)
        if value is not None and (not isinstance(value, int | float) or value <= 0):
            raise McpConfigError(f"{where}: \"{key}\" must be a positive number of seconds")
        setattr(config, key, float(value) if value is not None else None)


def expand(value: str, env: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}`` from ``env`` (unset without default: empty)."""
    return _VAR.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)


def bearer_token(config: ServerConfig, env: Mapping[str, str]) -> str | None:
    """The token for ``Authorization: Bearer``: an environment variable, else the keyring
    (service ``aiagent-mcp``, user = the configured name)."""
    if config.bearer_token_env and env.get(config.bearer_token_env):
        return env[config.bearer_token_env]
    if config.bearer_token_keyring:
        try:
            import keyring
            import keyring.errors

            value = keyring.get_password("aiagent-mcp", config.bearer_token_keyring)
        except (ImportError, RuntimeError, OSError):
            return None
        except Exception:  # noqa: BLE001 - a broken keyring backend means no token
            return None
        return value or None
    return None
