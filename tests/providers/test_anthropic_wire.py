"""Anthropic specifics: prompt caching, message shapes, usage with cache, error events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from provider_harness import SECRET, make_request, run

from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.providers import ProviderError, RetryableError, StreamEvent
from aiagent.infra.providers.anthropic import decode_stream, messages_url, request_body
from aiagent.testing import FakeLLM, Turn

EPHEMERAL = {"type": "ephemeral"}


def test_headers_and_cache_breakpoints_reach_the_server() -> None:
    with FakeLLM([Turn(text="ok")]) as fake:
        run("anthropic", fake)
        sent = fake.requests[0]
    assert sent["path"] == "/v1/messages"
    assert sent["headers"]["x-api-key"] == SECRET
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    body = sent["json"]
    assert body["system"] == [{"type": "text", "text": "You are a test.", "cache_control": EPHEMERAL}]
    assert body["tools"][-1]["cache_control"] == EPHEMERAL
    assert body["messages"][-1]["content"][-1]["cache_control"] == EPHEMERAL


def test_only_the_last_tool_and_last_message_carry_breakpoints() -> None:
    from aiagent.contracts.providers import ToolSpec

    tools = [ToolSpec(n, n, {"type": "object"}) for n in ("a", "b", "c")]
    history = [Message.user("one"), Message("assistant", [TextBlock("two")]), Message.user("three")]
    body = request_body(make_request(tools=tools, messages=history))
    assert ["cache_control" in t for t in body["tools"]] == [False, False, True]
    marks = [["cache_control" in b for b in m["content"]] for m in body["messages"]]
    assert marks == [[False], [False], [True]]


def test_message_conversion() -> None:
    history = [
        Message.user("Read it"),
        Message("assistant", [TextBlock(""), TextBlock("Sure."), ToolUseBlock("t1", "read_file", {"path": "a"})]),
        Message("user", [TextBlock("and then?"), ToolResultBlock("t1", "no such file", is_error=True)]),
    ]
    messages = request_body(make_request(messages=history, system=""))["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Sure."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}},
        ],
    }
    result, text = messages[2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "t1"
    assert result["content"] == "no such file" and result["is_error"] is True
    assert text["text"] == "and then?"
    assert "system" not in request_body(make_request(system=""))


def test_cache_usage_is_reported() -> None:
    with FakeLLM([Turn(text="ok", usage=(20, 7), cache=(1000, 300))]) as fake:
        usage = run("anthropic", fake).usage
    assert (usage.input_tokens, usage.output_tokens) == (20, 7)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (1000, 300)


def test_messages_url_accepts_a_base_with_or_without_v1() -> None:
    assert messages_url("https://api.anthropic.com") == "https://api.anthropic.com/v1/messages"
    assert messages_url("https://proxy.local/v1/") == "https://proxy.local/v1/messages"


async def _decode(text: str) -> list[StreamEvent]:
    async def lines() -> AsyncIterator[str]:
        for line in text.split("\n"):
            yield line

    return [e async for e in decode_stream(lines())]


def test_error_event_overloaded_is_retryable() -> None:
    stream = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    with pytest.raises(RetryableError, match="overloaded_error.*Overloaded"):
        asyncio.run(_decode(stream))


def test_error_event_invalid_request_is_final() -> None:
    stream = 'event: error\ndata: {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}\n\n'
    with pytest.raises(ProviderError, match="bad") as info:
        asyncio.run(_decode(stream))
    assert not isinstance(info.value, RetryableError)


def test_thinking_blocks_and_unknown_events_are_ignored() -> None:
    stream = "\n".join(
        [
            'data: {"type": "message_start", "message": {"usage": {"input_tokens": 3}}}',
            "",
            'data: {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}}',
            "",
            'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}}',
            "",
            'data: {"type": "something_new"}',
            "",
            'data: {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "x", "name": "t"}}',
            "",
            'data: {"type": "content_block_stop", "index": 1}',
            "",
            'data: {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}',
            "",
            'data: {"type": "message_stop"}',
            "",
        ]
    )
    events = asyncio.run(_decode(stream))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ToolUse", "UsageReport", "Stop"]
    assert events[0].block.input == {} and events[0].block.input_error is None  # type: ignore[union-attr]
