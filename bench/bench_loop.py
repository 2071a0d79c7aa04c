"""Agent-loop overhead: 200 turns against FakeLLM, each calling a trivial tool.

Prints, side by side, the median time per turn of the full Agent loop and of the bare
provider round trip (same FakeLLM, same requests), the loop's own time per turn (wall time
outside the provider's stream: tool call, history, events; target <= 5 ms), and RSS growth
over the run (target <= 20 MB). FakeLLM runs in its own process.
Run: .venv/bin/python bench/bench_loop.py [--turns N] [--provider NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import time
from typing import Any

from aiagent.agent.core.loop import Agent, AgentConfig
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.events import TurnEndEvent
from aiagent.contracts.providers import CompletionRequest, ProviderConfig
from aiagent.contracts.tools import ToolContext, ToolResult
from aiagent.infra.providers import create_provider
from aiagent.testing import FakeLLM, ToolCall, Turn


class NoopTool:
    name = "noop"
    description = "Does nothing."
    input_schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    read_only = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")


def script(turns: int) -> list[Turn]:
    calls = [Turn(text="step", tool_calls=[ToolCall("noop", {"n": i})]) for i in range(turns - 1)]
    return [*calls, Turn(text="finished")]


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def config(provider: str, fake: Any) -> ProviderConfig:
    return ProviderConfig(base_url=fake.url + ("/v1" if provider == "openai" else ""), api_key="k")


class ExternalFake:
    """FakeLLM in its own process, so its request log does not count in our RSS."""

    def __init__(self, turns: int) -> None:
        self.turns = turns

    def __enter__(self) -> ExternalFake:
        import json
        import subprocess
        import sys
        import tempfile
        from dataclasses import asdict

        self.script = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump([asdict(t) for t in script(self.turns)], self.script)
        self.script.close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "aiagent.testing.fakellm", "--script", self.script.name],
            stdout=subprocess.PIPE, text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        return self

    def __exit__(self, *exc: object) -> None:
        import os

        self.proc.kill()
        self.proc.wait()
        os.unlink(self.script.name)


class TimedProvider:
    """Wraps a provider and adds up the wall time spent inside its stream."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.spent = inner, inner.name, 0.0

    async def stream(self, req: Any) -> Any:
        events = self.inner.stream(req)
        while True:
            start = time.perf_counter()
            try:
                event = await events.__anext__()
            except StopAsyncIteration:
                self.spent += time.perf_counter() - start
                return
            self.spent += time.perf_counter() - start
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


async def agent_turns(provider: str, turns: int) -> tuple[list[float], list[float], float]:
    """Per turn: the wall time, and the wall time outside the provider (the loop's own)."""
    registry = ToolRegistry(lazy={})
    registry.register(NoopTool())
    with ExternalFake(turns) as fake:
        timed = TimedProvider(create_provider(provider, config(provider, fake)))
        agent = Agent(timed, registry, AgentConfig(model="bench", max_turns=turns + 1),
                      system_prompt="bench")
        before = rss_mb()
        times, own, last, spent = [], [], time.perf_counter(), 0.0
        async for event in agent.run("go"):
            if isinstance(event, TurnEndEvent):
                now = time.perf_counter()
                times.append(now - last)
                own.append((now - last) - (timed.spent - spent))
                last, spent = now, timed.spent
        return times, own, rss_mb() - before


async def bare_turns(provider: str, turns: int) -> list[float]:
    """The same requests (same growing history) sent straight through the provider."""
    registry = ToolRegistry(lazy={})
    registry.register(NoopTool())
    with FakeLLM(script(turns)) as fake:
        agent = Agent(create_provider(provider, config(provider, fake)), registry,
                      AgentConfig(model="bench", max_turns=turns + 1), system_prompt="bench")
        async for _ in agent.run("go"):
            pass
        history = agent.conversation.messages
    with ExternalFake(turns) as fake:
        bare = create_provider(provider, config(provider, fake))
        specs = registry.specs()
        times = []
        for i in range(turns):
            req = CompletionRequest("bench", "bench", history[: 2 * i + 1], specs)
            start = time.perf_counter()
            async for _ in bare.stream(req):
                pass
            times.append(time.perf_counter() - start)
        return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--provider", default="anthropic")
    args = parser.parse_args()
    agent_times, own, growth = asyncio.run(agent_turns(args.provider, args.turns))
    bare_times = asyncio.run(bare_turns(args.provider, args.turns))
    a, b = statistics.median(agent_times) * 1000, statistics.median(bare_times) * 1000
    print(f"provider: {args.provider}, turns: {args.turns}")
    print(f"{'':<34}{'median ms/turn':>15}")
    print(f"{'agent loop (with tool)':<34}{a:>15.2f}")
    print(f"{'bare provider round trip':<34}{b:>15.2f}")
    print(f"{'difference':<34}{a - b:>15.2f}")
    print(f"{'loop overhead (outside provider)':<34}{statistics.median(own) * 1000:>15.2f}"
          "   target <= 5 ms")
    print(f"{'RSS growth over run (MB)':<28}{growth:>15.1f}   target <= 20 MB")


if __name__ == "__main__":
    main()
