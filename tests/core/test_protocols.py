"""Tool-call protocols as strategies: native, ``<shell>`` tags, and a third one registered
by name that the real loop speaks over HTTP without any change to ``loop.py``."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

import pytest
from loop_harness import EchoTool, provider_config
from loop_harness import test_registry as make_registry

from aiagent.agent.core import protocols
from aiagent.agent.core.loop import Agent, AgentConfig
from aiagent.agent.core.prompt import build_system_prompt
from aiagent.agent.core.protocols import make_protocol, protocol_names, register_protocol
from aiagent.agent.core.protocols.native import NativeProtocol
from aiagent.agent.core.protocols.tags import TagsProtocol
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.events import AgentEvent, DoneEvent, ToolResultEvent
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import ToolSpec
from aiagent.contracts.tools import ToolContext, ToolResult
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM, ToolCall, Turn


class FakeShell:
    """Stands in for ``shell_command``: says which command it got."""

    name = "shell_command"
    description = "Run a command."
    input_schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(f"ran {args['command']}")


def run(fake: FakeLLM, protocol: str, registry: ToolRegistry | None = None,
        tool_settings: dict[str, Any] | None = None) -> tuple[list[AgentEvent], Agent]:
    config = AgentConfig(model="test-model", max_turns=10, tool_protocol=protocol,
                         tool_settings=tool_settings or {})
    agent = Agent(create_provider("openai", provider_config("openai", fake)),
                  registry or make_registry(), config, system_prompt="You are a test.")

    async def consume() -> list[AgentEvent]:
        try:
            return [event async for event in agent.run("go")]
        finally:
            await agent.aclose()

    return asyncio.run(consume()), agent


def answer(text: str = "", uses: list[ToolUseBlock] | None = None) -> Message:
    return Message("assistant", [TextBlock(text), *(uses or [])])


# ---- native ----------------------------------------------------------------------------


def test_native_offers_the_offered_specs_and_returns_tool_result_blocks() -> None:
    native = make_protocol("native", {})
    assert isinstance(native, NativeProtocol)
    assert [s.name for s in native.offered_tools(make_registry(), ["echo"])] == ["echo"]
    use = ToolUseBlock("c1", "echo", {"text": "x"})
    assert native.calls(answer("hi", [use]), 1) == [use]
    assert native.calls(answer("<shell>ls</shell>"), 1) == []  # tags mean nothing here
    done, stopped = ToolResultBlock("c1", "echo: x"), ToolResultBlock("c2", "not run", True)
    reply = native.results_message([use, use], [done, stopped], finished=False)
    assert reply == Message("user", [done, stopped])  # every call answered, even stopped
    assert native.prompt_fragments() == [] and native.base_prompt == "prompts/system.md"


# ---- tags ------------------------------------------------------------------------------


def test_tags_turn_shell_blocks_into_shell_command_calls_within_the_round_limit() -> None:
    tags = make_protocol("tags", {"tags": {"max_rounds": 2, "max_result_chars": 60}})
    assert isinstance(tags, TagsProtocol)
    assert tags.offered_tools(make_registry(), None) == []
    text = "Look: <shell>ls -a</shell> and <shell>\necho one\n</shell>."
    uses = tags.calls(answer(text), 3)
    assert [(u.id, u.name, u.input) for u in uses] == [
        ("shell-tag-3-0", "shell_command", {"command": "ls -a"}),
        ("shell-tag-3-1", "shell_command", {"command": "echo one"})]
    results = [ToolResultBlock(u.id, out) for u, out in zip(uses, ["a b", "x" * 500], strict=True)]
    reply = tags.results_message(uses, results, finished=True)
    assert reply is not None and reply.role == "user"
    first, second = reply.text.split("\n\n", 1)
    assert first == "$ ls -a\na b"
    assert second.startswith("$ echo one\n") and "characters cut" in second and len(second) < 120
    assert tags.results_message(uses, results[:1], finished=False) is None
    assert tags.calls(answer(text), 4) != []          # round 2 of 2
    assert tags.calls(answer(text), 5) == []          # limit reached: the run ends
    tags.begin_run()
    assert tags.calls(answer(text), 1) != []          # a new run counts again
    assert tags.calls(answer("no commands"), 1) == []


def test_tags_answer_a_stray_native_call_natively() -> None:
    tags = make_protocol("tags", {})
    use = ToolUseBlock("c1", "echo", {"text": "x"})
    assert tags.calls(answer("<shell>ls</shell>", [use]), 1) == [use]
    result = ToolResultBlock("c1", "echo: x")
    assert tags.results_message([use], [result], finished=True) == Message("user", [result])


def test_tags_protocol_over_the_loop_sends_results_as_one_user_message() -> None:
    registry = make_registry()
    registry.register(FakeShell())
    reply = "Let me look.\n<shell>ls</shell>\n<shell>pwd</shell>"
    with FakeLLM([Turn(text=reply, text_chunks=5), Turn(text="Seen.")]) as fake:
        events, agent = run(fake, "tags", registry)
        first, second = (r["json"] for r in fake.requests)
    assert events[-1] == DoneEvent("completed", "Seen.", 2, agent.usage, 0)
    assert not first.get("tools")
    assert second["messages"][-2:] == [{"role": "assistant", "content": reply},
                                       {"role": "user", "content": "$ ls\nran ls\n\n$ pwd\nran pwd"}]


def test_prompt_follows_the_protocol(tmp_path: Any) -> None:
    skills = PromptFragment("Skills", "call activate_skill")
    native = build_system_prompt(tmp_path, fragments=[skills])
    tagged = build_system_prompt(tmp_path, fragments=[skills], protocol="tags")
    assert "activate_skill" in native and "activate_skill" not in tagged
    assert "You have no tools to call" in tagged and "You have no tools to call" not in native
    assert make_protocol("tags", {}).prompt_fragments()[0].title == "Running commands"


def test_an_unknown_protocol_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown tool protocol 'smoke' \(known: native, tags\)"):
        make_protocol("smoke", {})


# ---- a third protocol, registered by name ----------------------------------------------

CALL = re.compile(r"^CALL (\w+) (\{.*\})$", re.MULTILINE)


class CallLines:
    """Lines ``CALL name {json}`` in the text; results back as ``name -> output`` lines."""

    base_prompt = "prompts/system.md"
    hidden_fragments: frozenset[str] = frozenset()

    def __init__(self, tool_settings: Mapping[str, Any]) -> None:
        self.settings = tool_settings

    def prompt_fragments(self) -> list[PromptFragment]:
        return [PromptFragment("Calling tools", "Write CALL name {json} on a line.")]

    def begin_run(self) -> None:
        pass

    def offered_tools(self, tools: ToolRegistry, offered: Collection[str] | None) -> list[ToolSpec]:
        return []

    def calls(self, answer: Message, turn: int) -> list[ToolUseBlock]:
        return [ToolUseBlock(f"line-{turn}-{i}", name, json.loads(args))
                for i, (name, args) in enumerate(CALL.findall(answer.text))]

    def results_message(self, uses: list[ToolUseBlock], results: list[ToolResultBlock],
                        finished: bool) -> Message | None:
        return Message.user("\n".join(f"{u.name} -> {r.content}"
                                      for u, r in zip(uses, results, strict=True)))


@pytest.fixture
def registry_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocols, "_REGISTRY", {})  # registrations end with the test


def test_a_registered_protocol_drives_the_loop_by_name(registry_copy: None) -> None:
    register_protocol("call-lines", CallLines)
    assert protocol_names() == ["call-lines", "native", "tags"]
    registry = ToolRegistry(lazy={})
    registry.register(EchoTool())
    script = [Turn(text='Echoing.\nCALL echo {"text": "hi"}'), Turn(text="Echoed.")]
    with FakeLLM(script) as fake:
        events, agent = run(fake, "call-lines", registry)
        first, second = (r["json"] for r in fake.requests)
    assert isinstance(agent.protocol, CallLines)
    assert not first.get("tools")
    assert [(e.id, e.content) for e in events if isinstance(e, ToolResultEvent)] == [
        ("line-1-0", "echo: hi")]
    assert second["messages"][-1] == {"role": "user", "content": "echo -> echo: hi"}
    assert isinstance(events[-1], DoneEvent) and events[-1].answer == "Echoed."


def test_native_protocol_over_the_loop_is_unchanged() -> None:
    script = [Turn(tool_calls=[ToolCall("echo", {"text": "ping"})]), Turn(text="pong")]
    with FakeLLM(script) as fake:
        events, agent = run(fake, "native")
        first = fake.requests[0]["json"]
    assert {t["function"]["name"] for t in first["tools"]} == set(make_registry().names())
    assert isinstance(agent.conversation.messages[2].content[0], ToolResultBlock)
    assert isinstance(events[-1], DoneEvent) and events[-1].answer == "pong"
