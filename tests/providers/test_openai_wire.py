"""OpenAI-compatible specifics: request shape, auth header, tolerance of odd servers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence

import pytest
from provider_harness import SECRET, make_request, run

from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.providers import (
    ProviderError,
    Stop,
    StreamEvent,
    TextDelta,
    ToolUse,
    UsageReport,
)
from aiagent.infra.providers.openai import decode_stream, request_body
from aiagent.testing import FakeLLM, Turn


def test_request_shape_and_bearer_header() -> None:
    with FakeLLM([Turn(text="ok")]) as fake:
        run("openai", fake)
        sent = fake.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["authorization"] == f"Bearer {SECRET}"
    body = sent["json"]
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][0] == {"role": "system", "content": "You are a test."}
    assert body["tools"][0]["type"] == "function"
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert body["max_tokens"] == 100


def test_no_authorization_header_without_a_key() -> None:
    with FakeLLM([Turn(text="local")]) as fake:
        outcome = run("openai", fake, api_key=None)
        assert "authorization" not in fake.requests[0]["headers"]
    assert outcome.text == "local"


def test_base_url_without_v1_also_works() -> None:
    with FakeLLM([Turn(text="ok")]) as fake:
        assert run("openai", fake, base_url=fake.url).text == "ok"
        assert fake.requests[0]["path"] == "/chat/completions"


def test_official_api_uses_max_completion_tokens() -> None:
    body = request_body(make_request(), official=True)
    assert "max_tokens" not in body and body["max_completion_tokens"] == 100


def test_history_conversion() -> None:
    history = [
        Message.user("go"),
        Message("assistant", [ToolUseBlock("c1", "a", {"x": 1}, raw_input='{"x":1}'), ToolUseBlock("c2", "b", {})]),
        Message("user", [ToolResultBlock("c1", "one"), ToolResultBlock("c2", "two", is_error=True)]),
        Message("assistant", [ToolUseBlock("c3", "a", {}, raw_input="{oops", input_error="bad")]),
        Message("user", [ToolResultBlock("c3", "fix your JSON"), TextBlock("also this")]),
    ]
    messages = request_body(make_request(messages=history, system=""))["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant", "tool", "user"]
    calls = messages[1]["tool_calls"]
    assert messages[1]["content"] == ""  # never null: strict servers (llama.cpp) reject it
    assert calls[0] == {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x":1}'}}
    assert calls[1]["function"]["arguments"] == "{}"
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "one"}
    assert messages[4]["tool_calls"][0]["function"]["arguments"] == "{}"  # invalid JSON not resent
    assert messages[6] == {"role": "user", "content": "also this"}


def test_cached_prompt_tokens_are_split_out() -> None:
    with FakeLLM([Turn(text="ok", usage=(100, 8), cache=(900, 0))]) as fake:
        usage = run("openai", fake).usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (100, 900, 8)


async def _decode(chunks: Sequence[object], done: bool = True) -> list[StreamEvent]:
    async def lines() -> AsyncIterator[str]:
        yield ": OPENROUTER PROCESSING"
        yield ""
        for chunk in chunks:
            yield "data: " + (chunk if isinstance(chunk, str) else json.dumps(chunk))
            yield ""
        if done:
            yield "data: [DONE]"

    return [e async for e in decode_stream(lines())]


def _delta(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_tolerates_missing_fields_and_index_less_tool_calls() -> None:
    chunks = [
        {"choices": [{"delta": {"content": "Hi"}}]},  # no index, no finish_reason key
        {"id": "x"},  # no choices at all
        _delta({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": '{"k"'}}]}),
        _delta({"tool_calls": [{"function": {"arguments": ": 1}"}}]}),
        _delta({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": {"z": 2}}}]}),
        _delta({"tool_calls": [{"id": "", "function": {"name": "h", "arguments": "{}"}}]}),
        _delta({"tool_calls": [{"function": {"name": "i", "arguments": "{}"}}]}),
        _delta({}, "tool_calls"),
    ]
    events = asyncio.run(_decode(chunks))
    assert isinstance(events[0], TextDelta)
    tools = [e.block for e in events if isinstance(e, ToolUse)]
    assert [(t.name, t.input) for t in tools] == [("f", {"k": 1}), ("g", {"z": 2}), ("h", {}), ("i", {})]
    assert [t.id for t in tools][:2] == ["a", "b"] and len({t.id for t in tools}) == 4
    assert events[-1] == Stop("tool_use")
    assert not any(isinstance(e, UsageReport) for e in events)


def test_stream_without_done_is_complete_once_finished() -> None:
    events = asyncio.run(_decode([_delta({"content": "x"}, "stop")], done=False))
    assert events[-1] == Stop("end_turn")


def test_stream_without_finish_or_done_is_not_complete() -> None:
    events = asyncio.run(_decode([_delta({"content": "x"})], done=False))
    assert not any(isinstance(e, Stop) for e in events)


def test_stop_with_tool_calls_means_tool_use() -> None:
    chunks = [_delta({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]}, "stop")]
    assert asyncio.run(_decode(chunks))[-1] == Stop("tool_use")


def test_error_inside_the_stream_is_raised() -> None:
    with pytest.raises(ProviderError, match="context length exceeded"):
        asyncio.run(_decode([{"error": {"message": "context length exceeded", "code": 400}}]))


def test_unstreamed_answers_with_tool_calls() -> None:
    """``stream = false`` (for servers that cannot stream tool calls): the whole answer is
    read at once, text, tool calls and usage alike."""
    from aiagent.testing import ToolCall

    turn = Turn(text="calling", tool_calls=[ToolCall("read_file", {"file_path": "a"})], usage=(7, 3))
    with FakeLLM([turn]) as fake:
        outcome = run("openai", fake, stream=False)
        body = fake.requests[0]["json"]
    assert body["stream"] is False and "stream_options" not in body
    assert outcome.text == "calling"
    assert [(t.name, t.input) for t in outcome.tools] == [("read_file", {"file_path": "a"})]
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (7, 3)
    assert outcome.stop == "tool_use"
