"""Every provider against FakeLLM over real HTTP: text, tool calls, usage, stop reasons."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from provider_harness import make_config, make_request, run

from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.providers import Stop, TextDelta
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM, ToolCall, Turn


def test_text_streams_in_pieces(provider_name: str) -> None:
    with FakeLLM([Turn(text="The answer is 42.", text_chunks=4)]) as fake:
        outcome = run(provider_name, fake)
    deltas = [e for e in outcome.events if isinstance(e, TextDelta)]
    assert len(deltas) == 4
    assert outcome.text == "The answer is 42."
    assert outcome.stop == "end_turn"
    assert outcome.tools == []
    assert not outcome.restarts


def test_several_tool_calls_with_split_arguments(provider_name: str) -> None:
    calls = [
        ToolCall("read_file", {"path": "a.txt", "limit": 20}, id="call_a"),
        ToolCall("grep_files", {"pattern": "def \\w+", "paths": ["src", "tests"]}, id="call_b"),
        ToolCall("list_dir", {}, id="call_c"),
    ]
    with FakeLLM([Turn(text="Let me look.", tool_calls=calls)]) as fake:
        outcome = run(provider_name, fake)
    assert outcome.text == "Let me look."
    assert [(t.id, t.name, t.input) for t in outcome.tools] == [
        ("call_a", "read_file", {"path": "a.txt", "limit": 20}),
        ("call_b", "grep_files", {"pattern": "def \\w+", "paths": ["src", "tests"]}),
        ("call_c", "list_dir", {}),
    ]
    assert all(t.input_error is None for t in outcome.tools)
    assert outcome.stop == "tool_use"


def test_tool_call_ids_are_made_up_when_missing(provider_name: str) -> None:
    calls = [ToolCall("a", {"x": 1}), ToolCall("b", {"y": 2})]
    with FakeLLM([Turn(tool_calls=calls)]) as fake:
        outcome = run(provider_name, fake)
    ids = [t.id for t in outcome.tools]
    assert all(ids) and len(set(ids)) == 2


def test_invalid_tool_json_is_reported_not_raised(provider_name: str) -> None:
    calls = [ToolCall("read_file", '{"path": "a.txt"'), ToolCall("list_dir", "[1, 2]")]
    with FakeLLM([Turn(tool_calls=calls)]) as fake:
        outcome = run(provider_name, fake)
    broken, not_object = outcome.tools
    assert broken.input == {} and broken.raw_input == '{"path": "a.txt"'
    assert broken.input_error is not None and "not valid JSON" in broken.input_error
    assert not_object.input == {}
    assert not_object.input_error is not None and "JSON object" in not_object.input_error


def test_usage_is_reported_once_before_stop(provider_name: str) -> None:
    with FakeLLM([Turn(text="ok", usage=(1234, 56))]) as fake:
        outcome = run(provider_name, fake)
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (1234, 56)
    assert isinstance(outcome.events[-1], Stop)


def test_max_tokens_stop_reason(provider_name: str) -> None:
    with FakeLLM([Turn(text="cut sh", stop_reason="max_tokens")]) as fake:
        outcome = run(provider_name, fake)
    assert outcome.stop == "max_tokens"


def test_conversation_round_trips_through_the_wire(provider_name: str) -> None:
    """A full history (text, tool use, tool result) is accepted and sent in the right shape."""
    history = [
        Message.user("Read a.txt"),
        Message("assistant", [TextBlock("Reading."), ToolUseBlock("t1", "read_file", {"path": "a.txt"})]),
        Message("user", [ToolResultBlock("t1", "hello", is_error=False)]),
    ]
    with FakeLLM([Turn(text="It says hello.")]) as fake:
        outcome = run(provider_name, fake, make_request(messages=history))
        sent = fake.requests[0]["json"]
    assert outcome.text == "It says hello."
    dumped = json.dumps(sent)
    assert "hello" in dumped and "read_file" in dumped and "a.txt" in dumped
    assert sent["model"] == "test-model"
    assert sent["stream"] is True


def test_each_request_takes_the_next_turn(provider_name: str) -> None:
    with FakeLLM([Turn(text="one"), Turn(text="two")]) as fake:
        first = run(provider_name, fake)
        second = run(provider_name, fake)
        third = run(provider_name, fake)
    assert (first.text, second.text, third.text) == ("one", "two", "FakeLLM: script exhausted")


def test_connections_are_reused_across_requests(provider_name: str) -> None:
    """The rest of the body is read after the last event, so the connection goes back to
    the pool instead of being dropped on every turn."""
    async def three_requests(fake: FakeLLM) -> None:
        provider: Any = create_provider(provider_name, make_config(provider_name, fake))
        for _ in range(3):
            async for _event in provider.stream(make_request()):
                pass
        await provider.aclose()

    with FakeLLM([Turn(text="a"), Turn(text="b", tool_calls=[ToolCall("t", {})]), Turn(text="c")]) as fake:
        asyncio.run(three_requests(fake))
        assert len(fake.requests) == 3
        assert fake.connections == 1
