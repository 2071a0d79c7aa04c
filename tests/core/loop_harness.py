"""Test tools and a helper that runs the real Agent against FakeLLM over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiagent.agent.core.loop import Agent, AgentConfig
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.events import AgentEvent, ApprovalRequestEvent
from aiagent.contracts.providers import ProviderConfig
from aiagent.contracts.tools import ToolContext, ToolResult
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM


class EchoTool:
    name = "echo"
    description = "Echo the text back."
    input_schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(f"echo: {args['text']}")


class BoomTool:
    name = "boom"
    description = "Always fails."
    input_schema = {"type": "object"}
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise RuntimeError("kaboom")


class TouchTool:
    name = "touch"
    description = "Create a file."
    input_schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    read_only = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        (ctx.workspace / args["path"]).write_text("")
        return ToolResult("created")


class SleepTool:
    name = "sleep"
    description = "Sleep."
    input_schema = {"type": "object", "properties": {"seconds": {"type": "number"}}}
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(args.get("seconds", 30))
        return ToolResult("slept")


def test_registry() -> ToolRegistry:
    registry = ToolRegistry(lazy={})
    for tool in (EchoTool(), BoomTool(), TouchTool(), SleepTool()):
        registry.register(tool)
    return registry


def provider_config(name: str, fake: FakeLLM) -> ProviderConfig:
    base = fake.url + "/v1" if name == "openai" else fake.url
    return ProviderConfig(
        base_url=base, api_key="test-key", api_key_env="TEST_KEY", backoff_base=0.01,
        backoff_max=0.05, idle_timeout=2.0, max_retries=3,
    )


Answerer = Callable[[ApprovalRequestEvent], None]


def run_agent(
    fake: FakeLLM,
    prompt: str = "go",
    *,
    provider: str = "anthropic",
    workspace: Path | None = None,
    answer: Answerer | None = None,
    cancel_after: float | None = None,
    **kwargs: Any,
) -> tuple[list[AgentEvent], Agent]:
    config = AgentConfig(
        model="test-model",
        max_turns=kwargs.pop("max_turns", 10),
        timeout=kwargs.pop("timeout", None),
    )
    agent = Agent(
        create_provider(provider, provider_config(provider, fake)),
        kwargs.pop("registry", None) or test_registry(),
        config,
        system_prompt="You are a test.",
        workspace=workspace,
        **kwargs,
    )

    async def consume() -> list[AgentEvent]:
        if cancel_after is not None:
            asyncio.get_running_loop().call_later(cancel_after, agent.cancel)
        events = []
        async for event in agent.run(prompt):
            if isinstance(event, ApprovalRequestEvent) and answer is not None:
                answer(event)
            events.append(event)
        return events

    return asyncio.run(consume()), agent
