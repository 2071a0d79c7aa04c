"""Helpers: run a provider against FakeLLM over real HTTP and gather what it yields.

(A module of its own, not conftest.py, so test files can import it by a unique name.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiagent.contracts.messages import Message, ToolUseBlock, Usage
from aiagent.contracts.providers import (
    CompletionRequest,
    ProviderConfig,
    Restart,
    Stop,
    StreamEvent,
    TextDelta,
    ToolSpec,
    ToolUse,
    UsageReport,
)
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM

BASES: dict[str, Callable[[FakeLLM], str]] = {
    "anthropic": lambda fake: fake.url,
    "openai": lambda fake: fake.url + "/v1",
    "ollama": lambda fake: fake.url,
}
KEY_ENVS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "ollama": "OLLAMA_API_KEY"}
SECRET = "sk-secret-test-key-123"


@dataclass
class Outcome:
    """A response as a consumer keeps it: everything before a Restart is dropped."""

    events: list[StreamEvent] = field(default_factory=list)

    @property
    def restarts(self) -> list[Restart]:
        return [e for e in self.events if isinstance(e, Restart)]

    @property
    def kept(self) -> list[StreamEvent]:
        last = max((i for i, e in enumerate(self.events) if isinstance(e, Restart)), default=-1)
        return self.events[last + 1 :]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.kept if isinstance(e, TextDelta))

    @property
    def tools(self) -> list[ToolUseBlock]:
        return [e.block for e in self.kept if isinstance(e, ToolUse)]

    @property
    def usage(self) -> Usage:
        reports = [e.usage for e in self.kept if isinstance(e, UsageReport)]
        assert len(reports) == 1, reports
        return reports[0]

    @property
    def stop(self) -> str:
        assert isinstance(self.kept[-1], Stop), self.kept
        return self.kept[-1].reason


def make_config(name: str, fake: FakeLLM, **overrides: Any) -> ProviderConfig:
    values: dict[str, Any] = {
        "base_url": BASES[name](fake),
        "api_key": SECRET,
        "api_key_env": KEY_ENVS[name],
        "backoff_base": 0.01,
        "backoff_max": 0.05,
        "idle_timeout": 2.0,
        "connect_timeout": 2.0,
        "max_retries": 3,
        "probe_limits": False,  # the limits probe has tests of its own (test_limits.py)
    }
    values.update(overrides)
    return ProviderConfig(**values)


def make_request(**overrides: Any) -> CompletionRequest:
    values: dict[str, Any] = {
        "model": "test-model",
        "system": "You are a test.",
        "messages": [Message.user("Hi")],
        "tools": [ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {}})],
        "max_tokens": 100,
    }
    values.update(overrides)
    return CompletionRequest(**values)


def run(name: str, fake: FakeLLM, request: CompletionRequest | None = None, **config: Any) -> Outcome:
    """Stream one request through provider ``name``; raises what the provider raises."""

    async def go() -> Outcome:
        provider: Any = create_provider(name, make_config(name, fake, **config))
        outcome = Outcome()
        try:
            async for event in provider.stream(request or make_request()):
                outcome.events.append(event)
        finally:
            await provider.aclose()
        return outcome

    return asyncio.run(go())
