"""Layered settings: package defaults → user file → project file → environment → flags.

Each layer is a plain dict shaped like ``config.toml``; later layers win key by key. Files
are validated against ``schema.json`` one by one, so an error names the file, the line and
the key. Nothing here reads the environment at import time.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.config import paths

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


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files("aiagent.config").joinpath("schema.json").read_text(encoding="utf-8")
    )
    return schema


def validate(data: dict[str, Any], source: str, text: str | None = None) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(_schema())
    error = next(iter(sorted(validator.iter_errors(data), key=lambda e: list(e.path))), None)
    if error is None:
        return
    keys = [str(p) for p in error.path]
    message = error.message
    extra = re.search(r"\('([^']+)' was unexpected\)|\('([^']+)', .* were unexpected\)", message)
    if error.validator == "additionalProperties" and extra:
        keys.append(extra.group(1) or extra.group(2))
        message = "unknown key"
    line = _line_of(text, keys) if text is not None else None
    where = f"{source}:{line}" if line else source
    raise ConfigError(f"{where}: {'.'.join(keys) or '(top level)'}: {message}")


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


def env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    mapping = {
        "ANTHROPIC_BASE_URL": "provider.anthropic.base_url",
        "OPENAI_BASE_URL": "provider.openai.base_url",
        "OLLAMA_HOST": "provider.ollama.base_url",
        "AIAGENT_PROVIDER": "provider.default",
        "AIAGENT_MODEL": "provider.model",
    }
    for var, dotted in mapping.items():
        value = env.get(var, "").strip()
        if value:
            _set(data, dotted, value)
    try:
        validate(data, "environment")
    except ConfigError as exc:
        var = next((v for v, d in mapping.items() if d in str(exc)), "environment")
        raise ConfigError(f"{var}: {str(exc).split(': ', 2)[-1]}") from None
    return data


# ---- the settings object -------------------------------------------------------------


@dataclass(slots=True)
class Settings:
    workspace: Path
    layers: list[Layer]
    env: Mapping[str, str] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(
        cls,
        cwd: Path | None = None,
        flags: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        env = dict(os.environ if env is None else env)
        workspace = (cwd or Path.cwd()).resolve()
        defaults = tomllib.loads(
            resources.files("aiagent.config").joinpath("defaults.toml").read_text("utf-8")
        )
        layers = [Layer("defaults", "built-in defaults", defaults)]
        for name, path in (
            ("user", paths.user_config_file(env)),
            ("project", paths.project_config_file(workspace)),
        ):
            if path.is_file():
                layers.append(Layer(name, str(path), read_toml(path)))
        layers.append(Layer("env", "environment", env_layer(env)))
        if flags:
            layers.append(Layer("flags", "command line", dict(flags)))
        data: dict[str, Any] = {}
        for layer in layers:
            data = merge(data, layer.data)
        return cls(workspace, layers, env, data)

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
        return str(self.get("provider.default", "anthropic"))

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
        from aiagent.config import credentials

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
        from aiagent.providers.base import ProviderConfig

        provider = provider or self.provider_name
        key, source = self.api_key(provider)
        net = self.get("network", {})
        base_url = str(self.get(f"provider.{provider}.base_url", ""))
        if "://" not in base_url:
            base_url = "http://" + base_url
        return ProviderConfig(
            base_url=base_url.rstrip("/"),
            api_key=key,
            api_key_env=source,
            connect_timeout=float(net.get("connect_timeout", 10.0)),
            idle_timeout=float(net.get("idle_timeout", 120.0)),
            max_retries=int(net.get("max_retries", 4)),
            backoff_base=float(net.get("backoff_base", 1.0)),
            backoff_max=float(net.get("backoff_max", 30.0)),
            max_retry_wait=float(net.get("max_retry_wait", 120.0)),
            extra_headers=dict(self.get(f"provider.{provider}.headers", {})),
            max_line_bytes=int(net.get("max_line_bytes", 8 * 1024 * 1024)),
            max_body_bytes=int(net.get("max_body_bytes", 256 * 1024 * 1024)),
            max_output_chars=int(net.get("max_output_chars", 1_000_000)),
            turn_timeout=float(net.get("turn_timeout", 1800.0)),
            probe_timeout=float(net.get("probe_timeout", 2.0)),
            probe_limits=float(net.get("probe_timeout", 2.0)) > 0,
            tool_choice=str(self.get(f"provider.{provider}.tool_choice", "auto")),
            stream=self.get(f"provider.{provider}.stream", True) is not False,
        )

    @property
    def agent(self) -> AgentSettings:
        a = self.get("agent", {})
        return AgentSettings(
            max_turns=int(a.get("max_turns", 50)),
            timeout=float(a.get("timeout", 0)),
            approval_mode=str(a.get("approval_mode", "prompt")),
            context_budget=int(a.get("context_budget", 100000)),
            tool_profile=str(a.get("tool_profile", "default")),
            tool_protocol=str(a.get("tool_protocol", "native")),
            tools=list(a["tools"]) if a.get("tools") is not None else None,
            system_prompt=a.get("system_prompt"),
        )

    @property
    def max_tokens(self) -> int:
        return int(self.get(f"provider.{self.provider_name}.max_tokens", 8192))

    def masked(self) -> dict[str, Any]:
        """The merged settings with every secret-looking value masked."""
        return _mask(self.data)


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
