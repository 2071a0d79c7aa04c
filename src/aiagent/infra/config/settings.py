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

from aiagent.infra.config import paths

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


@dataclass(slots=True)
class AgentSettings:
    max_turns: int
    timeout: float  # seconds; 0 = none
    approval_mode: str
    context_budget: int
    tool_profile: str
    tool_protocol: str
    tools: list[str] | None
    system_prompt: str | None


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
    from aiagent.infra.config import schema

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
    from aiagent.infra.config import schema

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
    workspace: Path
    layers: list[Layer]
    env: Mapping[str, str] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    trust: Trust | None = None  # may the project's own code and wider settings take effect?

    @classmethod
    def load(
        cls,
        cwd: Path | None = None,
        flags: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        env = dict(os.environ if env is None else env)
        workspace = (cwd or Path.cwd()).resolve()
        from aiagent.infra.config import schema

        layers = [Layer("defaults", "built-in defaults", schema.defaults())]
        for name, path in (
            ("user", paths.user_config_file(env)),
            ("project", paths.project_config_file(workspace)),
        ):
            if path.is_file():
                layers.append(Layer(name, str(path), read_toml(path)))
        layers.append(Layer("env", "environment", env_layer(env)))
        if flags:
            layers.append(Layer("flags", "command line", dict(flags)))
        trust = _apply_trust(workspace, layers, env, flags)
        data: dict[str, Any] = {}
        for layer in layers:
            data = merge(data, layer.data)
        return cls(workspace, layers, env, data, trust)

    def get(self, dotted: str, default: Any = None) -> Any:
        value = _get(self.data, dotted)
        return default if value is None else value

    def _last_layer(self, dotted: str) -> int:
        found = -1
        for index, layer in enumerate(self.layers):
            if _get(layer.data, dotted) is not None:
                found = index
        return found

    @property
    def provider_name(self) -> str:
        return str(self.get("provider.default"))

    @property
    def model(self) -> str:
        """``[provider].model`` if set no earlier than the provider choice, else the
        chosen provider's own ``model``."""
        general = self.get("provider.model")
        if general and self._last_layer("provider.model") >= self._last_layer("provider.default"):
            return str(general)
        return str(self.get(f"provider.{self.provider_name}.model", ""))

    def api_key(self, provider: str | None = None) -> tuple[str | None, str | None]:
        """(key, where it came from or should come from) for ``provider``.

        Looked up in order: ``[provider.X] api_key`` (with ``api_key_source = "config"``),
        the keyring (with ``api_key_source = "keyring"``), the environment variable, then
        the 0600 credentials file written by ``aiagent config set-key``.
        """
        from aiagent.infra.config import credentials

        provider = provider or self.provider_name
        var = PROVIDER_KEY_ENV.get(provider)
        if var is None:
            return None, None
        source = self.get(f"provider.{provider}.api_key_source", "env")
        if source == "config" and self.get(f"provider.{provider}.api_key"):
            return str(self.get(f"provider.{provider}.api_key")), f"[provider.{provider}] api_key"
        if source == "keyring" and (key := credentials.keyring_get(provider)):
            return key, "the system keyring"
        if self.env.get(var):
            return self.env[var], var
        if key := credentials.file_get(provider, self.env):
            return key, str(credentials.credentials_file(self.env))
        return None, var

    def provider_config(self, provider: str | None = None) -> Any:
        from aiagent.contracts.providers import ProviderConfig

        provider = provider or self.provider_name
        key, source = self.api_key(provider)
        net = self.get("network")
        base_url = str(self.get(f"provider.{provider}.base_url", ""))
        if "://" not in base_url:
            base_url = "http://" + base_url
        return ProviderConfig(
            base_url=base_url.rstrip("/"),
            api_key=key,
            api_key_env=source,
            connect_timeout=float(net["connect_timeout"]),
            idle_timeout=float(net["idle_timeout"]),
            max_retries=int(net["max_retries"]),
            backoff_base=float(net["backoff_base"]),
            backoff_max=float(net["backoff_max"]),
            max_retry_wait=float(net["max_retry_wait"]),
            extra_headers=dict(self.get(f"provider.{provider}.headers", {})),
            max_line_bytes=int(net.get("max_line_bytes", 8 * 1024 * 1024)),
            max_body_bytes=int(net.get("max_body_bytes", 256 * 1024 * 1024)),
            max_output_chars=int(net.get("max_output_chars", 1_000_000)),
            turn_timeout=float(net.get("turn_timeout", 1800.0)),
            probe_timeout=float(net.get("probe_timeout", 2.0)),
            probe_limits=float(net.get("probe_timeout", 2.0)) > 0,
            tool_choice=str(self.get(f"provider.{provider}.tool_choice", "auto")),
            stream=self.get(f"provider.{provider}.stream", True) is not False,
            vision=self.get(f"provider.{provider}.vision"),
        )

    @property
    def agent(self) -> AgentSettings:
        a = self.get("agent")  # every key has a default in schema.json
        return AgentSettings(
            max_turns=int(a["max_turns"]),
            timeout=float(a["timeout"]),
            approval_mode=str(a["approval_mode"]),
            context_budget=int(a["context_budget"]),
            tool_profile=str(a["tool_profile"]),
            tool_protocol=str(a["tool_protocol"]),
            tools=list(a["tools"]) if a.get("tools") is not None else None,
            system_prompt=a.get("system_prompt"),
        )

    @property
    def max_tokens(self) -> int:
        return int(self.get(f"provider.{self.provider_name}.max_tokens"))

    def masked(self) -> dict[str, Any]:
        """The merged settings with every secret-looking value masked."""
        return _mask(self.data)


def _apply_trust(workspace: Path, layers: list[Layer], env: Mapping[str, str],
                 flags: Mapping[str, Any] | None) -> Trust:
    """Decide workspace trust from the user's layers only; in an untrusted folder, drop
    the project config keys that would widen permissions (see config/trust.py)."""
    from aiagent.infra.config import trust as trust_mod

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
