"""Layered settings: package defaults → user file → project file → environment → flags.

Each layer is a plain dict shaped like ``config.toml``; later layers win key by key. The
settings model is ``schema.json`` (see :mod:`aiagent.infra.config.schema`): it gives every key's
type, limits and default, and the defaults layer is built from it. Files and environment
variables are validated against it one by one, so an error names the file, the line and the
key (or the variable). Nothing here reads the environment at import time.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.contracts.providers import ProviderConfig
from aiagent.infra.config import credentials, paths, schema
from aiagent.infra.config import trust as trust_mod
from aiagent.infra.config.model import (
    AcpSettings,
    AgentSettings,
    ContextSettings,
    HookSettings,
    McpSettings,
    NetworkSettings,
    PermissionSettings,
    ProviderSettings,
    SandboxSettings,
    SecuritySettings,
    SettingsModel,
    SkillSettings,
    ToolSettings,
    WebSettings,
    WikiSettings,
    build,
)

if TYPE_CHECKING:
    from aiagent.infra.config.trust import Trust

PROVIDER_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
SECRET_WORDS = ("key", "token", "secret", "password")


class ConfigError(Exception):
    """A bad setting. The message is one line naming where and what."""

    exit_code = 2


@dataclass(slots=True)
class Layer:
    name: str  # defaults | user | project | env | flags
    source: str  # a file path, or a description
    data: dict[str, Any]


# ---- reading and validating files ----------------------------------------------------


def read_toml(path: Path) -> dict[str, Any]:
    """Parse and validate one config file, or raise a one-line :class:`ConfigError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        where = f"{path}:{m.group(1)}" if m else str(path)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg) or "invalid TOML"
        raise ConfigError(f"{where}: invalid TOML: {reason}") from None
    validate(data, str(path), text)
    return data


def validate(data: dict[str, Any], source: str, text: str | None = None) -> None:
    """Raise a one-line :class:`ConfigError` for the first value that does not fit the
    settings model: ``<source>:<line>: [table] key: what is wrong``."""

    problem = schema.first_problem(data)
    if problem is None:
        return
    keys = [re.sub(r"(\[\d+\])+$", "", key) for key in problem.keys]
    line = _line_of(text, keys) if text is not None else None
    where = f"{source}:{line}" if line else source
    raise ConfigError(f"{where}: {problem.where()}: {problem.message}")


def _line_of(text: str, keys: list[str]) -> int | None:
    """The line where dotted ``keys`` is set (best effort for the common TOML shapes)."""
    table: list[str] = []
    best: int | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        header = re.match(r"^\[+\s*([^\]]+?)\s*\]+", line)
        if header:
            table = [p.strip().strip('"') for p in header.group(1).split(".")]
            if table == keys:
                best = best or number
            continue
        assign = re.match(r'^("?[\w.-]+"?)\s*=', line)
        if assign:
            full = table + [p.strip('"') for p in assign.group(1).split(".")]
            if full == keys[: len(full)] and len(full) >= min(len(keys), len(table) + 1):
                return number
    return best


# ---- merging -------------------------------------------------------------------------


def merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


ENV_SETTINGS = {
    "ANTHROPIC_BASE_URL": "provider.anthropic.base_url",
    "OPENAI_BASE_URL": "provider.openai.base_url",
    "OLLAMA_HOST": "provider.ollama.base_url",
    "AIAGENT_PROVIDER": "provider.default",
    "AIAGENT_MODEL": "provider.model",
}


def env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """The settings environment variables set; a bad value names the variable."""

    data: dict[str, Any] = {}
    for var, dotted in ENV_SETTINGS.items():
        value = env.get(var, "").strip()
        if not value:
            continue
        single: dict[str, Any] = {}
        _set(single, dotted, value)
        problem = schema.first_problem(single)
        if problem is not None:
            raise ConfigError(f"{var}: {problem.message}")
        _set(data, dotted, value)
    return data


# ---- the settings object -------------------------------------------------------------


@dataclass(slots=True)
class Settings:
    """The merged, validated settings of one folder: typed sections (``settings.agent``,
    ``settings.tools.shell``…), the layers they came from, and the folder's trust.

    Which provider and model a run uses is not decided here: :func:`aiagent.app.resolve`
    decides it once, from these settings, for every front-end."""

    workspace: Path
    layers: list[Layer]
    env: Mapping[str, str] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    trust: Trust | None = None  # may the project's own code and wider settings take effect?
    typed: SettingsModel = field(default_factory=SettingsModel)

    @classmethod
    def load(
        cls,
        cwd: Path | None = None,
        flags: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        env = dict(os.environ if env is None else env)
        workspace = (cwd or Path.cwd()).resolve()

        layers = [Layer("defaults", "built-in defaults", schema.defaults())]
        for name, path in (
            ("user", paths.user_config_file(env)),
            ("project", paths.project_config_file(workspace)),
        ):
            if path.is_file():
                layers.append(Layer(name, str(path), read_toml(path)))
        layers.append(Layer("env", "environment", env_layer(env)))
        if flags:
            validate(dict(flags), "command line")
            layers.append(Layer("flags", "command line", dict(flags)))
        trust = _apply_trust(workspace, layers, env, flags)
        data: dict[str, Any] = {}
        for layer in layers:
            data = merge(data, layer.data)
        return cls(workspace, layers, env, data, trust, build(SettingsModel, data))

    # ---- the typed sections ----------------------------------------------------------

    @property
    def provider(self) -> ProviderSettings:
        return self.typed.provider

    @property
    def network(self) -> NetworkSettings:
        return self.typed.network

    @property
    def agent(self) -> AgentSettings:
        return self.typed.agent

    @property
    def context(self) -> ContextSettings:
        return self.typed.context

    @property
    def permissions(self) -> PermissionSettings:
        return self.typed.permissions

    @property
    def sandbox(self) -> SandboxSettings:
        return self.typed.sandbox

    @property
    def tools(self) -> ToolSettings:
        return self.typed.tools

    @property
    def mcp(self) -> McpSettings:
        return self.typed.mcp

    @property
    def security(self) -> SecuritySettings:
        return self.typed.security

    @property
    def skills(self) -> SkillSettings:
        return self.typed.skills

    @property
    def acp(self) -> AcpSettings:
        return self.typed.acp

    @property
    def web(self) -> WebSettings:
        return self.typed.web

    @property
    def wiki(self) -> WikiSettings:
        return self.typed.wiki

    @property
    def hooks(self) -> HookSettings:
        return self.typed.hooks

    @property
    def trusted(self) -> bool:
        """Whether this folder's own code and wider settings may take effect."""
        return self.trust is None or self.trust.trusted

    # ---- where a value came from -------------------------------------------------------

    def set_by_user(self, dotted: str) -> bool:
        """Whether anything but the built-in defaults sets ``dotted`` (a file, the
        environment, a flag)."""
        return any(_get(layer.data, dotted) is not None
                   for layer in self.layers if layer.name != "defaults")

    def layer_of(self, dotted: str) -> Layer | None:
        """The last layer that sets ``dotted``."""
        found = None
        for layer in self.layers:
            if _get(layer.data, dotted) is not None:
                found = layer
        return found

    def layer_index(self, dotted: str) -> int:
        """The index of the last layer that sets ``dotted`` (-1: none)."""
        layer = self.layer_of(dotted)
        return -1 if layer is None else self.layers.index(layer)

    def lookup(self, dotted: str) -> Any:
        """The merged value at ``dotted`` (for ``aiagent config get KEY``), or None."""
        return _get(self.data, dotted)

    # ---- keys and provider endpoints ---------------------------------------------------

    def api_key(self, provider: str) -> tuple[str | None, str | None]:
        """(key, where it came from or should come from) for ``provider``.

        Looked up in order: ``[provider.X] api_key`` (with ``api_key_source = "config"``),
        the keyring (with ``api_key_source = "keyring"``), the environment variable, then
        the 0600 credentials file written by ``aiagent config set-key``.
        """

        var = PROVIDER_KEY_ENV.get(provider)
        if var is None:
            return None, None
        entry = self.provider.entry(provider)
        if entry.api_key_source == "config" and entry.api_key:
            return entry.api_key, f"[provider.{provider}] api_key"
        if entry.api_key_source == "keyring" and (key := credentials.keyring_get(provider)):
            return key, "the system keyring"
        if self.env.get(var):
            return self.env[var], var
        if key := credentials.file_get(provider, self.env):
            return key, str(credentials.credentials_file(self.env))
        return None, var

    def provider_config(self, provider: str) -> Any:
        """The endpoint, key and network limits of ``provider`` (a ``ProviderConfig``)."""

        key, source = self.api_key(provider)
        net, entry = self.network, self.provider.entry(provider)
        base_url = entry.base_url
        if "://" not in base_url:
            base_url = "http://" + base_url
        return ProviderConfig(
            base_url=base_url.rstrip("/"),
            api_key=key,
            api_key_env=source,
            connect_timeout=net.connect_timeout,
            idle_timeout=net.idle_timeout,
            max_retries=net.max_retries,
            backoff_base=net.backoff_base,
            backoff_max=net.backoff_max,
            max_retry_wait=net.max_retry_wait,
            extra_headers=dict(entry.headers),
            max_line_bytes=net.max_line_bytes,
            max_body_bytes=net.max_body_bytes,
            max_output_chars=net.max_output_chars,
            turn_timeout=net.turn_timeout,
            probe_timeout=net.probe_timeout,
            probe_limits=net.probe_timeout > 0,
            tool_choice=entry.tool_choice,
            stream=entry.stream is not False,
            vision=entry.vision,
        )

    def masked(self) -> dict[str, Any]:
        """The merged settings with every secret-looking value masked."""
        masked: dict[str, Any] = _mask(self.data)
        return masked


def _apply_trust(workspace: Path, layers: list[Layer], env: Mapping[str, str],
                 flags: Mapping[str, Any] | None) -> Trust:
    """Decide workspace trust from the user's layers only; in an untrusted folder, drop
    the project config keys that would widen permissions (see config/trust.py)."""

    user = next((layer.data for layer in layers if layer.name == "user"), {})
    decision = trust_mod.decide(paths.project_root(workspace), env, user, flags)
    for index, layer in enumerate(layers):
        if layer.name == "project" and not decision.trusted:
            base: dict[str, Any] = {}
            for below in layers[:index]:
                base = merge(base, below.data)
            kept, decision.ignored_keys = trust_mod.restrict_project_layer(layer.data, base)
            layers[index] = Layer(layer.name, layer.source, kept)
    return decision


def mask_secret(value: str) -> str:
    return "****" + value[-4:] if len(value) >= 12 else "****"


def _mask(node: Any, key: str = "") -> Any:
    if isinstance(node, dict):
        return {k: _mask(v, k) for k, v in node.items()}
    if isinstance(node, str) and any(w in key.lower() for w in SECRET_WORDS):
        if key.endswith("_source"):
            return node
        return mask_secret(node)
    return node
