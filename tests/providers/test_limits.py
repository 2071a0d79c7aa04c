"""max_tokens never asks for more than the context can hold: the window from the config or
the built-in table, else asked once of the server (llama.cpp /props, /v1/models, Ollama
/api/show) within a short timeout."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest
from provider_harness import make_config, make_request

from aiagent.contracts.messages import Message
from aiagent.contracts.providers import CompletionRequest
from aiagent.infra.providers import create_provider
from aiagent.infra.providers.limits import fit_max_tokens, probe_window, prompt_estimate
from aiagent.testing import FakeLLM, Turn


def _two_turns(name: str, fake: FakeLLM, request: CompletionRequest, **config: Any) -> None:
    async def go() -> None:
        provider: Any = create_provider(name, make_config(name, fake, probe_limits=True, **config))
        try:
            for _ in range(2):
                async for _event in provider.stream(request):
                    pass
        finally:
            await provider.aclose()

    asyncio.run(go())


def _asked(fake: FakeLLM, name: str) -> list[int]:
    key = {"ollama": "options"}.get(name)
    bodies = [r["json"] for r in fake.requests if r["json"] and "messages" in r["json"]]
    return [b[key]["num_predict"] if key else b["max_tokens"] for b in bodies]


@pytest.mark.parametrize("name", ["openai", "ollama"])
def test_server_context_caps_max_tokens_and_is_asked_once(name: str) -> None:
    request = make_request(max_tokens=8192, messages=[Message.user("x" * 3000)])
    with FakeLLM([Turn(text="a"), Turn(text="b")], context_size=2048) as fake:
        _two_turns(name, fake, request)
        probes = [r["path"] for r in fake.probes if r["path"].endswith(("/props", "/api/show"))]
        asked = _asked(fake, name)
    assert len(probes) == 1  # once per run, not per request
    expected = 2048 - prompt_estimate(request)
    assert asked == [expected, expected] and 256 < expected < 2048


def test_openai_models_list_context_length() -> None:
    """No /props (not llama.cpp): the /v1/models entry's context_length is used."""
    request = make_request(max_tokens=8192, messages=[Message.user("hi")])
    with FakeLLM([Turn(text="a"), Turn(text="b")]) as fake:
        import aiagent.testing.fakellm as fakellm

        listing = {"object": "list", "data": [{"id": "test-model", "context_length": 4096}]}
        original = fakellm.MODELS["/v1/models"]
        fakellm.MODELS["/v1/models"] = listing
        try:
            _two_turns("openai", fake, request)
        finally:
            fakellm.MODELS["/v1/models"] = original
        asked = _asked(fake, "openai")
    assert asked[0] == 4096 - prompt_estimate(request)


def test_known_window_skips_the_probe() -> None:
    request = make_request(max_tokens=8192)
    with FakeLLM([Turn(text="a"), Turn(text="b")], context_size=2048) as fake:
        _two_turns("openai", fake, request, context_window=100_000)
        assert fake.probes == []
        assert _asked(fake, "openai") == [8192, 8192]


def test_no_answer_leaves_max_tokens_alone() -> None:
    with FakeLLM([Turn(text="a"), Turn(text="b")]) as fake:
        _two_turns("openai", fake, make_request(max_tokens=8192))
        assert _asked(fake, "openai") == [8192, 8192]


def test_silent_server_costs_only_the_probe_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        base = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"

        async def fetch(method: str, url: str, body: dict[str, Any] | None) -> object:
            from aiagent.contracts.providers import ProviderConfig
            from aiagent.infra.providers.wire import HttpStreamer

            wire = HttpStreamer(ProviderConfig(base_url=base, probe_timeout=0.3))
            try:
                return await wire.fetch_json(method, url, body)
            finally:
                await wire.aclose()

        started = time.monotonic()
        assert asyncio.run(probe_window("openai", base, "m", fetch)) is None
        assert time.monotonic() - started < 2.0  # two probes, 0.3 s each at most


def test_fit_keeps_a_floor_when_the_prompt_fills_the_window() -> None:
    request = make_request(max_tokens=8192, messages=[Message.user("y" * 30_000)])
    assert fit_max_tokens(request, 4096, floor=256).max_tokens == 256
    assert fit_max_tokens(request, None, floor=256).max_tokens == 8192
    small = make_request(max_tokens=100)
    assert fit_max_tokens(small, 4096, floor=256).max_tokens == 100  # never raised
