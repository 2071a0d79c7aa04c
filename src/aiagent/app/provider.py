"""Which provider and model a run uses: decided once, here, for every front-end.

The order: what the user named (``--provider``/``--model``, ``AIAGENT_PROVIDER``/
``AIAGENT_MODEL``, a config file), then detection: an Anthropic key, an OpenAI key, a base
URL set for one of them (a local OpenAI-compatible server needs no key), then an Ollama server
that answers on ``OLLAMA_HOST`` (default ``127.0.0.1:11434``) within :data:`PROBE_SECONDS`.
The headless run, the TUI, the web chat and its scheduler, ACP, the wiki, code review, log
analysis, the LLM audit, sessions and ``aiagent config show`` all take the
:class:`ProviderChoice` this returns, so none can disagree with another.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from aiagent.contracts.providers import AuthError
from aiagent.infra.config.settings import ENV_SETTINGS, Layer, Settings
from aiagent.infra.providers.hosts import host_url

PROBE_SECONDS = 0.3
BUILT_IN = "anthropic"
NOTHING = (
    "no model provider is available: set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
    "or start Ollama (OLLAMA_HOST, default 127.0.0.1:11434), or choose one with --provider"
)
FLAG_NAMES = {"provider.default": "--provider", "provider.model": "--model"}


@dataclass(frozen=True, slots=True)
class ProviderChoice:
    """The provider and model of a run, and why each was chosen (said by ``config show``)."""

    name: str
    model: str
    why: str
    model_why: str
    detected: bool = False

    @property
    def note(self) -> str | None:
        """The line to tell the user when detection chose other than the built-in default."""
        if not self.detected or self.name == BUILT_IN:
            return None
        return f"using provider {self.name} ({self.why}; choose another with --provider)"


def resolve_provider(settings: Settings, *, provider: str | None = None, model: str | None = None,
            probe: Callable[[str], bool] | None = None) -> ProviderChoice:
    """The provider and model for a run in ``settings``' folder.

    ``provider``/``model`` are a front-end's own choice for this session (the TUI's
    ``/provider`` and ``/model``). Raises :class:`AuthError` (exit 3) when the user named no
    provider and none is available."""
    if provider:
        name, why, detected = provider, "chosen in this session", False
    elif settings.set_by_user("provider.default"):
        name, why, detected = settings.provider.default, _origin(settings, "provider.default"), False
    else:
        found, why = _detect(settings, probe or ollama_answers)
        if found is None:
            raise AuthError(NOTHING)
        name, detected = found, True
    chosen_model, model_why = _model(settings, name, model, detected)
    return ProviderChoice(name, chosen_model, why, model_why, detected)


def named(settings: Settings) -> ProviderChoice:
    """The provider the settings name (the built-in default when none): what a session is
    recorded with, and what the first-run screen explains, when nothing is available."""
    name = settings.provider.default
    why = (_origin(settings, "provider.default") if settings.set_by_user("provider.default")
           else "the built-in default; no other provider is available")
    chosen_model, model_why = _model(settings, name, None, False)
    return ProviderChoice(name, chosen_model, why, model_why)


def _model(settings: Settings, name: str, model: str | None, detected: bool) -> tuple[str, str]:
    if model:
        return model, "chosen in this session"
    general = settings.provider.model
    # a general model set no earlier than the provider choice applies to it; a detected
    # provider counts as chosen just above the defaults, so any model the user set wins
    if general and (detected or settings.layer_index("provider.model")
                    >= settings.layer_index("provider.default")):
        return general, _origin(settings, "provider.model")
    own = settings.provider.entry(name).model
    dotted = f"provider.{name}.model"
    if settings.set_by_user(dotted):
        return own, _origin(settings, dotted)
    return own, f"the default model for {name}"


def _origin(settings: Settings, dotted: str) -> str:
    layer = settings.layer_of(dotted)
    return describe_layer(layer, dotted) if layer is not None else "the built-in default"


def describe_layer(layer: Layer, dotted: str) -> str:
    """``--provider``, ``AIAGENT_PROVIDER``, ``[provider] default in /path/config.toml``."""
    if layer.name == "flags":
        return FLAG_NAMES.get(dotted, "the command line")
    if layer.name == "env":
        var = next((v for v, d in ENV_SETTINGS.items() if d == dotted), "the environment")
        return f"{var} is set"
    if layer.name == "defaults":
        return "the built-in default"
    table, _, key = dotted.rpartition(".")
    return f"[{table}] {key} in {layer.source}"


def _detect(settings: Settings, probe: Callable[[str], bool]) -> tuple[str | None, str]:
    for name in ("anthropic", "openai"):
        key, source = settings.api_key(name)
        if key:
            return name, f"{source} is set"
    for name, var in (("openai", "OPENAI_BASE_URL"), ("anthropic", "ANTHROPIC_BASE_URL")):
        if settings.set_by_user(f"provider.{name}.base_url"):
            return name, f"a base URL is set for it ({var} or config)"
    host = settings.provider.ollama.base_url or "127.0.0.1:11434"
    if probe(host):
        return "ollama", f"Ollama answers at {host}"
    return None, ""


def ollama_answers(host: str, timeout: float = PROBE_SECONDS) -> bool:
    """Whether an Ollama server answers ``GET /api/version`` at ``host`` in time."""

    url = host_url(host) + "/api/version"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as resp:  # noqa: S310 - http(s) URL built above
            data = json.loads(resp.read(4096))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "version" in data
