"""Running the children of one agent: the ``task`` tool's delegate.

:class:`Subagents` looks up the profile, waits for one of ``limit`` slots (several ``task``
calls of one answer run side by side, see ``Agent._run_tools``), has the set-up build the
child (``build``: :func:`aiagent.app.subagents.build_child`), runs it and gives the parent
its answer. On the way every event of the child reaches the parent's front-end wrapped in a
:class:`~aiagent.contracts.events.SubagentEvent`, except approval requests: those go as they
are (the same future, so the person's answer reaches the child), with the child's label in
``agent`` and ``what``. The child's tokens are added to the parent's total, also when it is
stopped. Cancelling the parent cancels the ``task`` call, which stops the child's worker
and its tools, and :meth:`Agent.aclose` ends what they left running.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.agent.core.loop import EXIT_INTERRUPTED
from aiagent.agent.core.subagents.profiles import DEFAULT, Catalog, Profile, ProfileError
from aiagent.contracts.events import AgentEvent, ApprovalRequestEvent, DoneEvent, SubagentEvent
from aiagent.contracts.messages import Usage
from aiagent.contracts.tools import ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from aiagent.agent.core.loop import Agent

log = logging.getLogger("aiagent.agent.subagents")

#: builds a child for a profile, its label and the task's title: the agent and warnings
#: about what was narrowed
Build = Callable[[Profile, str, str], "tuple[Agent, list[str]]"]


@dataclass(frozen=True, slots=True)
class ChildRun:
    """What one child did: for the tool result's metadata and a front-end's tally."""

    label: str
    profile: str
    model: str
    stop_reason: str
    turns: int
    usage: Usage = field(default_factory=Usage)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "agent": self.profile, "model": self.model,
                "stop_reason": self.stop_reason, "turns": self.turns, "usage": self.usage.as_dict()}


class Subagents:
    """The children of ``parent``: at most ``limit`` at a time."""

    def __init__(self, parent: Agent, catalog: Catalog, build: Build, *, limit: int) -> None:
        self.parent, self.catalog, self.build = parent, catalog, build
        self.limit = max(1, limit)
        self._slots: asyncio.Semaphore | None = None
        self._started = 0
        self.runs: list[ChildRun] = []

    async def delegate(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The ``task`` tool's work: run a child on ``args["prompt"]``, return its answer."""
        try:
            profile = self.catalog.get(str(args.get("agent") or DEFAULT))
        except ProfileError as exc:
            raise ToolError(str(exc)) from None
        self._started += 1
        label = f"{profile.name}#{self._started}"  # numbered in call order, before waiting
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        async with self._slots:
            child, notes = self.build(profile, label, str(args.get("description") or ""))
            for note in notes:
                log.warning("aiagent: %s", note)
            return await self._drive(child, profile, label, str(args["prompt"]), ctx, notes)

    async def _drive(self, child: Agent, profile: Profile, label: str, prompt: str,
                     ctx: ToolContext, notes: list[str]) -> ToolResult:
        model = child.config.model
        forward = _forwarder(ctx, profile.name, label, model)
        done: DoneEvent | None = None
        try:
            async for event in child.run(prompt):
                if isinstance(event, DoneEvent):
                    done = event
                forward(event)
        finally:
            try:
                await child.aclose()
            finally:
                _count(self.parent, child, model)
                if done is None:  # stopped from outside (the parent was cancelled)
                    forward(DoneEvent("interrupted", "", 0, child.usage, EXIT_INTERRUPTED))
                self.runs.append(ChildRun(label, profile.name, model,
                                          done.stop_reason if done else "interrupted",
                                          done.turns if done else 0, child.usage))
        return _result(done, label, notes, self.runs[-1])


def _count(parent: Agent, child: Agent, model: str) -> None:
    """Add ``child``'s tokens to ``parent``'s: its own at ``model``, those of its own children
    at the models they ran on (each priced at the model that spent it)."""
    own = child.usage.as_dict()
    for _, usage in child.usage_elsewhere:
        own = {key: max(0, value - usage.as_dict()[key]) for key, value in own.items()}
    parent.add_usage(Usage(**own), model)
    for other, usage in child.usage_elsewhere:
        parent.add_usage(usage, other)


def _forwarder(ctx: ToolContext, name: str, label: str,
               model: str) -> Callable[[AgentEvent], None]:
    """Pass a child's events to the parent's front-end, labelled."""

    def forward(event: AgentEvent) -> None:
        if isinstance(event, ApprovalRequestEvent):  # a grandchild's: "general#1 › helper#1"
            agent = f"{label} › {event.agent}" if event.agent else label
            ctx.emit(dataclasses.replace(event, what=f"[{label}] {event.what}", agent=agent))
        else:
            ctx.emit(SubagentEvent(ctx.call_id, name, label, event, model))

    return forward


def _result(done: DoneEvent | None, label: str, notes: list[str], run: ChildRun) -> ToolResult:
    """What the parent's model reads: the child's answer (and what was narrowed)."""
    tail = "".join(f"\n[note: {n}]" for n in notes)
    meta = {"subagent": run.as_dict()}
    if done is not None and done.stop_reason == "completed":
        answer = done.answer.strip() or f"(subagent {label} finished without an answer)"
        return ToolResult(answer + tail, False, meta)
    reason = done.stop_reason if done is not None else "interrupted"
    partial = f"\nWhat it said last:\n{done.answer.strip()}" if done and done.answer.strip() else ""
    return ToolResult(f"subagent {label} stopped before finishing ({reason}).{partial}{tail}",
                      True, meta)
