"""Which provider to use when the user chose none.

A provider named anywhere (config file, ``AIAGENT_PROVIDER``, ``--provider``) is used as
is. Otherwise the first available wins: an Anthropic key, an OpenAI key, a base URL set for
one of them (a local OpenAI-compatible server needs no key), then an Ollama server that
answers on ``OLLAMA_HOST`` (default ``127.0.0.1:11434``) within :data:`PROBE_SECONDS`.
A choice other than the built-in default is said in one line; when nothing is available,
the error names what to set.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from aiagent.contracts.providers import AuthError

PROBE_SECONDS = 0.3
NOTHING = (
    "no model provider is available: set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
    "or start Ollama (OLLAMA_HOST, default 127.0.0.1:11434), or choose one with --provider"
)


def choose_provider(settings: Any) -> str | None:
    """Settle ``provider.default`` on ``settings``; the line to tell the user, if any.

    Raises :class:`AuthError` (exit 3) when no provider is available."""
    if _explicit(settings, "provider.default"):
        return None
    name, why = _available(settings)
    if name is None:
        raise AuthError(NOTHING)
    if name == settings.provider_name:  # the built-in default, as before: nothing to say
        return None
    _settle(settings, name)
    return f"using provider {name} ({why}; choose another with --provider)"


def _explicit(settings: Any, dotted: str) -> bool:
    """Set by something other than the built-in defaults."""
    from aiagent.infra.config.settings import _get

    return any(_get(layer.data, dotted) is not None for layer in settings.layers[1:])


def _available(settings: Any) -> tuple[str | None, str]:
    for name in ("anthropic", "openai"):
        key, source = settings.api_key(name)
        if key:
            return name, f"{source} is set"
    for name, var in (("openai", "OPENAI_BASE_URL"), ("anthropic", "ANTHROPIC_BASE_URL")):
        if _explicit(settings, f"provider.{name}.base_url"):
            return name, f"a base URL is set for it ({var} or config)"
    host = str(settings.get("provider.ollama.base_url", "") or "127.0.0.1:11434")
    if ollama_answers(host):
        return "ollama", f"Ollama answers at {host}"
    return None, ""


def ollama_answers(host: str, timeout: float = PROBE_SECONDS) -> bool:
    """Whether an Ollama server answers ``GET /api/version`` at ``host`` in time."""
    from aiagent.infra.providers.hosts import host_url

    url = host_url(host) + "/api/version"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as resp:  # noqa: S310 - http(s) URL built above
            data = json.loads(resp.read(4096))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "version" in data


def _settle(settings: Any, name: str) -> None:
    """Record the choice as a layer just above the defaults, so a model set anywhere by
    the user still wins over the chosen provider's own default model."""
    from aiagent.infra.config.settings import Layer, merge

    settings.layers.insert(1, Layer("auto", "detected", {"provider": {"default": name}}))
    data: dict[str, Any] = {}
    for layer in settings.layers:
        data = merge(data, layer.data)
    settings.data = data
