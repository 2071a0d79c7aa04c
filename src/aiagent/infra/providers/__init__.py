"""LLM providers, looked up by name and imported only when used."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.contracts.providers import Provider, ProviderConfig

PROVIDERS: dict[str, str] = {
    "anthropic": "aiagent.infra.providers.anthropic:AnthropicProvider",
    "openai": "aiagent.infra.providers.openai:OpenAIProvider",
    "ollama": "aiagent.infra.providers.ollama:OllamaProvider",
}


def create_provider(name: str, config: ProviderConfig) -> Provider:
    """Build the provider called ``name`` (one of :data:`PROVIDERS`)."""
    try:
        target = PROVIDERS[name]
    except KeyError:
        known = ", ".join(sorted(PROVIDERS))
        raise ValueError(f"unknown provider {name!r} (known: {known})") from None
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    provider: Provider = cls(config)
    return provider
