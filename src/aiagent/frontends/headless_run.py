"""What a headless run adds around the agent: its cost, and the stream-json run.

The agent's budget (``[agent] max_cost`` / ``max_tokens``, ``--max-cost``,
``--max-tokens``: :mod:`aiagent.agent.core.budget`) is built with it by the application;
:class:`RunMeter` puts, after each run, the cost so far (the model's price from
:mod:`aiagent.infra.config.pricing`) and the budget's reason into the transcript every
output format shows.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiagent.contracts.messages import Message, Usage

if TYPE_CHECKING:
    from aiagent.app import Application, Started
    from aiagent.frontends.headless import Transcript
    from aiagent.frontends.interrupt import StopOnSignal
    from aiagent.frontends.stream_json import StreamJsonRenderer


@dataclass(slots=True)
class RunMeter:
    """After each run: the cost so far and the budget's reason into the transcript."""

    agent: Any

    def cost(self, usage: Usage) -> float | None:
        """``usage`` priced at the run's model, each task child's share at its own model's."""
        from aiagent.infra.config.pricing import run_cost

        return run_cost(self.agent.config.model, usage, self.agent.usage_elsewhere)

    def settle(self, transcript: Transcript, renderer: Any) -> int:
        """Cost and budget reason into ``transcript``; the run's exit code."""
        done = transcript.done
        if done is None:
            return 5
        transcript.cost_usd = self.cost(done.usage)
        if done.stop_reason == "max_budget" and self.agent.budget is not None:
            transcript.stop_message = self.agent.budget.reason
        lines = getattr(renderer, "lines", None)
        if lines is not None and lines.broken:
            from aiagent.frontends.stream_json import EXIT_BROKEN_PIPE

            return EXIT_BROKEN_PIPE
        return done.exit_code


def last_assistant(messages: list[Message]) -> Message | None:
    return next((m for m in reversed(messages) if m.role == "assistant"), None)


def stream_json_run(app: Application, started: Started, prompt: str,
                    renderer: StreamJsonRenderer, stopper: StopOnSignal,
                    settle: Callable[[Transcript], int], stream: dict[str, bool],
                    images: Sequence[Any] = ()) -> int:
    """``-o stream-json``: the init line, then one run (or, with ``--input-format
    stream-json``, one per message on stdin), each ending with its result line. The
    ``--image`` files go with the first message."""
    from aiagent import __version__
    from aiagent.frontends.headless import drive
    from aiagent.frontends.stream_json import EXIT_BROKEN_PIPE
    from aiagent.frontends.stream_json_input import MessageReader, converse

    agent = started.agent
    renderer.session_id, renderer.model = started.session.info.id, agent.config.model
    renderer.last_assistant = lambda: last_assistant(agent.conversation.messages)
    renderer.lines.on_broken = agent.cancel
    renderer.init(cwd=str(agent.workspace), provider=app.resolve().name,
                  tools=[t.name for t in agent.request().tools],
                  mode=app.settings.agent.approval_mode, version=__version__)
    if renderer.lines.broken:
        asyncio.run(agent.aclose())
        return EXIT_BROKEN_PIPE
    if not stream.get("input"):
        transcript = asyncio.run(drive(agent, prompt, renderer, stopper, images))
        code = settle(transcript)
        renderer.finish(transcript)
        return code

    attached = list(images)

    async def one(text: str) -> Transcript:
        first, attached[:] = tuple(attached), []
        return await drive(agent, text, renderer, stopper, first, close=False)

    async def conversation() -> int:
        try:
            return await converse(prompt, MessageReader(sys.stdin.buffer), one, settle,
                                  renderer, renderer.err)
        finally:
            await agent.aclose()

    return asyncio.run(conversation())
