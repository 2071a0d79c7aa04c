"""Ollama specifics: host forms, request shape, tool calls as objects, done reasons."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from provider_harness import make_request, run

from aiagent.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from aiagent.contracts.providers import ProviderError, Stop, StreamEvent, ToolUse
from aiagent.infra.providers.ollama import decode_stream, host_url, request_body
from aiagent.testing import FakeLLM, Turn


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("localhost:11434", "http://localhost:11434"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("http://gpu-box:8080/", "http://gpu-box:8080"),
        ("https://ollama.example.com", "https://ollama.example.com"),
        ("", "http://127.0.0.1:11434"),
    ],
)
def test_host_forms(given: str, expected: str) -> None:
    assert host_url(given) == expected


def test_host_without_scheme_reaches_the_server() -> None:
    with FakeLLM([Turn(text="hi")]) as fake:
        assert run("ollama", fake, base_url=fake.url.removeprefix("http://")).text == "hi"


def test_request_shape() -> None:
    history = [
        Message.user("go"),
        Message("assistant", [ToolUseBlock("c1", "read_file", {"path": "a"})]),
        Message("user", [ToolResultBlock("c1", "text of a")]),
    ]
    body = request_body(make_request(messages=history, temperature=0.2))
    assert body["stream"] is True
    assert body["options"] == {"num_predict": 100, "temperature": 0.2}
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool"]
    assert body["messages"][2]["tool_calls"][0]["function"] == {"name": "read_file", "arguments": {"path": "a"}}
    assert body["messages"][3] == {"role": "tool", "content": "text of a", "tool_name": "read_file", "tool_call_id": "c1"}


async def _decode(lines: list[object]) -> list[StreamEvent]:
    async def gen() -> AsyncIterator[str]:
        for line in lines:
            yield line if isinstance(line, str) else json.dumps(line)

    return [e async for e in decode_stream(gen())]


def test_arguments_as_string_or_missing() -> None:
    calls = [
        {"function": {"name": "a", "arguments": '{"x": 1}'}},
        {"function": {"name": "b", "arguments": "not json"}},
        {"function": {"name": "c"}},
    ]
    events = asyncio.run(_decode([{"message": {"tool_calls": calls}}, "", {"done": True, "done_reason": "stop"}]))
    tools = [e.block for e in events if isinstance(e, ToolUse)]
    assert [t.input for t in tools] == [{"x": 1}, {}, {}]
    assert [t.input_error is None for t in tools] == [True, False, True]
    assert events[-1] == Stop("tool_use")


def test_done_reason_length_and_usage() -> None:
    events = asyncio.run(
        _decode([{"message": {"content": "ab"}}, {"done": True, "done_reason": "length", "prompt_eval_count": 7, "eval_count": 3}])
    )
    assert events[-1] == Stop("max_tokens")
    assert events[-2].usage.input_tokens == 7  # type: ignore[union-attr]


def test_error_line_is_raised() -> None:
    with pytest.raises(ProviderError, match="ollama: model runner crashed"):
        asyncio.run(_decode([{"error": "model runner crashed"}]))
