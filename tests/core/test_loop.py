"""The agent loop over real HTTP: FakeLLM ↔ provider ↔ Agent ↔ tools."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from loop_harness import run_agent

from aiagent.contracts.approval import ASK, Decision
from aiagent.contracts.events import (
    DoneEvent,
    ErrorEvent,
    RetryEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    UsageEvent,
)
from aiagent.contracts.hooks import Hooks, HookVerdict
from aiagent.contracts.hooks import ToolCall as HookCall
from aiagent.contracts.messages import TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.tools import ToolResult
from aiagent.testing import FakeLLM, ToolCall, Turn


def _done(events: list[Any]) -> DoneEvent:
    assert isinstance(events[-1], DoneEvent)
    return events[-1]


def _results(events: list[Any]) -> list[ToolResultEvent]:
    return [e for e in events if isinstance(e, ToolResultEvent)]


def test_text_answer(provider_name: str) -> None:
    with FakeLLM([Turn(text="Hello there, friend.", usage=(12, 4))]) as fake:
        events, agent = run_agent(fake, provider=provider_name)
    done = _done(events)
    assert (done.stop_reason, done.answer, done.exit_code, done.turns) == (
        "completed", "Hello there, friend.", 0, 1)
    assert "".join(e.text for e in events if isinstance(e, TextDeltaEvent)) == done.answer
    assert any(isinstance(e, UsageEvent) for e in events)
    assert done.usage.input_tokens == 12 and done.usage.output_tokens == 4
    assert [m.role for m in agent.conversation] == ["user", "assistant"]


def test_tool_round_trip(provider_name: str) -> None:
    script = [
        Turn(text="Let me echo.", tool_calls=[ToolCall("echo", {"text": "ping"})]),
        Turn(text="Done: ping."),
    ]
    with FakeLLM(script) as fake:
        events, agent = run_agent(fake, provider=provider_name)
        second = fake.requests[1]["json"]
    assert _done(events).answer == "Done: ping."
    assert [(r.name, r.content, r.is_error) for r in _results(events)] == [
        ("echo", "echo: ping", False)]
    history = agent.conversation.messages
    assert isinstance(history[1].content[0], TextBlock)
    assert isinstance(history[1].content[1], ToolUseBlock)
    result = history[2].content[0]
    assert isinstance(result, ToolResultBlock) and result.content == "echo: ping"
    assert "echo: ping" in str(second)  # the result went back to the model


def test_several_tool_calls_in_one_response_all_run() -> None:
    calls = [ToolCall("echo", {"text": str(i)}) for i in range(3)]
    with FakeLLM([Turn(tool_calls=calls), Turn(text="ok")]) as fake:
        events, _ = run_agent(fake)
    assert [r.content for r in _results(events)] == ["echo: 0", "echo: 1", "echo: 2"]


def test_model_mistakes_become_error_results(provider_name: str) -> None:
    script = [
        Turn(tool_calls=[
            ToolCall("nope", {}),
            ToolCall("echo", '{"text": '),
            ToolCall("echo", {"text": 5}),
            ToolCall("boom", {}),
        ]),
        Turn(text="Sorry, fixed."),
    ]
    with FakeLLM(script) as fake:
        events, _ = run_agent(fake, provider=provider_name)
    results = _results(events)
    assert all(r.is_error for r in results)
    assert "unknown tool 'nope'" in results[0].content and "echo" in results[0].content
    assert "not valid" in results[1].content
    assert results[2].content == "invalid arguments for echo: text: 5 is not of type 'string'"
    assert results[3].content == "tool boom failed: RuntimeError: kaboom"
    assert _done(events).answer == "Sorry, fixed."


def test_turn_limit() -> None:
    script = [Turn(tool_calls=[ToolCall("echo", {"text": "again"})]) for _ in range(5)]
    with FakeLLM(script) as fake:
        events, _ = run_agent(fake, max_turns=2)
        assert len(fake.requests) == 2
    done = _done(events)
    assert (done.stop_reason, done.exit_code, done.turns) == ("max_turns", 4, 2)


def test_timeout_stops_a_slow_tool() -> None:
    with FakeLLM([Turn(tool_calls=[ToolCall("sleep", {"seconds": 30})])]) as fake:
        start = time.monotonic()
        events, _ = run_agent(fake, timeout=0.5)
    assert time.monotonic() - start < 5
    assert (_done(events).stop_reason, _done(events).exit_code) == ("timeout", 4)


def test_cancel_is_clean() -> None:
    with FakeLLM([Turn(tool_calls=[ToolCall("sleep", {"seconds": 30})])]) as fake:
        events, agent = run_agent(fake, cancel_after=0.5)
    assert (_done(events).stop_reason, _done(events).exit_code) == ("interrupted", 130)
    last = agent.conversation.messages[-1]
    assert last.role == "user" and isinstance(last.content[0], ToolResultBlock)
    assert last.content[0].is_error and last.content[0].content.startswith("not run")


def test_cancelled_run_leaves_a_history_the_next_run_can_send() -> None:
    calls = [ToolCall("echo", {"text": "first"}), ToolCall("sleep", {"seconds": 30}),
             ToolCall("echo", {"text": "third"})]
    with FakeLLM([Turn(tool_calls=calls), Turn(text="resumed fine")]) as fake:
        events, agent = run_agent(fake, cancel_after=0.5)
        results = agent.conversation.messages[-1].content
        assert [r.is_error for r in results if isinstance(r, ToolResultBlock)] == [False, True, True]

        async def again() -> list[Any]:
            return [e async for e in agent.run("go on")]

        import asyncio

        second = asyncio.run(again())
        sent = fake.requests[-1]["json"]["messages"]
    assert _done(second).answer == "resumed fine"
    tool_results = [b for m in sent for b in (m["content"] if isinstance(m["content"], list) else [])
                    if b.get("type") == "tool_result"]
    assert [b["tool_use_id"] for b in tool_results] == [c.id for c in agent.conversation.messages[1].tool_uses]


def test_hooks_modify_cancel_transform() -> None:
    seen: list[int] = []

    async def start(messages: list[Any]) -> None:
        seen.append(len(messages))

    async def before(call: HookCall) -> HookVerdict | None:
        if call.name == "touch":
            return HookVerdict(cancel=True, reason="no writes today")
        call.args["text"] = call.args["text"].upper()
        return None

    async def after(call: HookCall, result: ToolResult) -> ToolResult:
        return ToolResult(result.content + " (checked)", result.is_error)

    async def response(text: str) -> str:
        return text.replace("done", "DONE")

    hooks = Hooks([start], [before], [after], [response])
    script = [
        Turn(tool_calls=[ToolCall("echo", {"text": "hi"}), ToolCall("touch", {"path": "x"})]),
        Turn(text="all done"),
    ]
    with FakeLLM(script) as fake:
        events, _ = run_agent(fake, hooks=hooks)
    results = _results(events)
    assert results[0].content == "echo: HI (checked)"
    assert results[1].is_error and "no writes today" in results[1].content
    assert _done(events).answer == "all DONE" and seen == [1]


class WhitelistPolicy:
    """Allows the named tools and refuses the rest, as a headless run does."""

    def __init__(self, allowed: list[str]) -> None:
        self.allowed = allowed

    async def decide(self, tool: Any, args: dict[str, Any]) -> Decision:
        if tool.name in self.allowed:
            return Decision.allow()
        return Decision.deny(f"{tool.name} needs approval; rerun with --tools {tool.name}")

    def record(self, tool: Any, args: dict[str, Any], answer: str) -> None:
        return None


def test_refused_calls_do_not_run_and_the_model_reads_why(tmp_path: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("touch", {"path": "f"}), ToolCall("echo", {"text": "a"})]),
              Turn(text="ok")]
    with FakeLLM(script) as fake:
        events, _ = run_agent(fake, workspace=tmp_path, approval=WhitelistPolicy(["echo"]))
    touch, echo = _results(events)
    assert touch.is_error and "--tools" in touch.content and not (tmp_path / "f").exists()
    assert not echo.is_error
    with FakeLLM(script) as fake:
        events, _ = run_agent(fake, workspace=tmp_path, approval=WhitelistPolicy(["touch"]))
    touch, echo = _results(events)
    assert not touch.is_error and (tmp_path / "f").exists()
    assert echo.is_error and "not allowed" in echo.content


class AskPolicy:
    def __init__(self) -> None:
        self.recorded: list[str] = []

    async def decide(self, tool: Any, args: dict[str, Any]) -> Decision:
        return ASK

    def record(self, tool: Any, args: dict[str, Any], answer: str) -> None:
        self.recorded.append(answer)


def test_approval_request_is_answered_by_the_front_end(tmp_path: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("touch", {"path": "a"})]),
              Turn(tool_calls=[ToolCall("touch", {"path": "b"})]), Turn(text="ok")]
    answers = iter(["once", "deny"])
    policy = AskPolicy()
    with FakeLLM(script) as fake:
        events, _ = run_agent(fake, workspace=tmp_path, approval=policy,
                              answer=lambda e: e.answer(next(answers)))
    assert policy.recorded == ["once", "deny"]
    assert (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert "declined" in _results(events)[1].content


def test_cut_stream_retries_and_keeps_no_partial_text(provider_name: str) -> None:
    script = [Turn(text="partial answer that gets cut", cut_after=4, text_chunks=8),
              Turn(text="Whole answer.")]
    with FakeLLM(script) as fake:
        events, agent = run_agent(fake, provider=provider_name)
    assert any(isinstance(e, RetryEvent) for e in events)
    assert _done(events).answer == "Whole answer."
    assert agent.conversation.messages[-1].text == "Whole answer."
    assert "partial" not in str(agent.conversation.messages)


def test_provider_error_ends_with_exit_3(provider_name: str) -> None:
    with FakeLLM([Turn(status=401, error_message="invalid x-api-key")]) as fake:
        events, _ = run_agent(fake, provider=provider_name)
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and "TEST_KEY" in errors[0].message
    assert (_done(events).stop_reason, _done(events).exit_code) == ("error", 3)


def test_turn_end_events_count_responses() -> None:
    with FakeLLM([Turn(tool_calls=[ToolCall("echo", {"text": "x"})]), Turn(text="y")]) as fake:
        events, _ = run_agent(fake)
    assert [e.turn for e in events if isinstance(e, TurnEndEvent)] == [1, 2]
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == ["echo"]
