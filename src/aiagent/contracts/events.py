"""AgentEvent: the one stream every front-end consumes.

The core yields these; a front-end renders them. Nothing in the core prints.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from aiagent.contracts.messages import Usage

if TYPE_CHECKING:
    from aiagent.contracts.tools import ToolEffect


@dataclass(frozen=True, slots=True)
class TextDeltaEvent:
    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    id: str
    name: str
    args: dict[str, Any]
    kind: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, slots=True)
class ToolOutputEvent:
    """Live output of a running tool (a shell command's stdout/stderr as it arrives)."""

    id: str
    stream: Literal["stdout", "stderr"]
    chunk: str
    kind: Literal["tool_output"] = "tool_output"


@dataclass(frozen=True, slots=True)
class FileDiffEvent:
    """A tool changed (or is about to change) a file; ``diff`` is a unified diff."""

    id: str
    path: str
    diff: str
    kind: Literal["file_diff"] = "file_diff"


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    """The result exactly as given to the model."""

    id: str
    name: str
    content: str
    is_error: bool
    kind: Literal["tool_result"] = "tool_result"


ApprovalAnswer = Literal["once", "session", "project", "always", "deny"]


@dataclass(slots=True)
class ApprovalRequestEvent:
    """The policy wants a person to decide. The front-end calls :meth:`answer`."""

    id: str
    tool: str
    what: str
    args: dict[str, Any]
    options: tuple[ApprovalAnswer, ...] = ("once", "session", "project", "always", "deny")
    future: asyncio.Future[ApprovalAnswer] | None = field(default=None, repr=False)
    kind: Literal["approval_request"] = "approval_request"
    effect: ToolEffect | None = None  # what the tool declares it does (front-ends read it)
    #: the child agent that asks (a ``task`` subagent's label, e.g. ``reviewer#1``); "" = the main agent
    agent: str = ""
    #: the id of the tool call this request is about (that agent's own call id; "" = unknown)
    call_id: str = ""

    def answer(self, value: ApprovalAnswer) -> None:
        if self.future is not None and not self.future.done():
            self.future.set_result(value)


@dataclass(frozen=True, slots=True)
class UsageEvent:
    usage: Usage
    total: Usage
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True, slots=True)
class CompactionEvent:
    before_tokens: int
    after_tokens: int
    summary: str
    kind: Literal["compaction"] = "compaction"


@dataclass(frozen=True, slots=True)
class RetryEvent:
    """The provider restarts the response; drop the partial text shown so far."""

    reason: str
    attempt: int
    delay: float
    kind: Literal["retry"] = "retry"


@dataclass(frozen=True, slots=True)
class TurnEndEvent:
    turn: int
    stop_reason: str
    kind: Literal["turn_end"] = "turn_end"


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    message: str
    exit_code: int
    kind: Literal["error"] = "error"


PlanStatus = Literal["pending", "in_progress", "completed"]


@dataclass(frozen=True, slots=True)
class PlanStep:
    step: str
    status: PlanStatus


@dataclass(frozen=True, slots=True)
class PlanUpdatedEvent:
    """The model recorded its plan (``update_plan``): the whole plan, replacing the last one.

    ``id`` is the tool call's id; ``steps`` are in order, at most one ``in_progress``;
    an empty tuple clears the plan."""

    id: str
    steps: tuple[PlanStep, ...]
    explanation: str = ""
    kind: Literal["plan"] = "plan"


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """The run is over. ``stop_reason``: completed, max_turns, timeout, interrupted, error."""

    stop_reason: str
    answer: str
    turns: int
    usage: Usage
    exit_code: int
    kind: Literal["done"] = "done"


@dataclass(frozen=True, slots=True)
class SubagentEvent:
    """An event of a child agent the ``task`` tool started, labelled with the child.

    ``id`` is the parent's ``task`` call; ``name`` the profile; ``label`` tells children
    apart (``reviewer#2``); ``event`` is the child's own event (a child's approval request
    is not wrapped: it reaches the front-end as an :class:`ApprovalRequestEvent` whose
    ``agent`` is the label). The child's :class:`DoneEvent` carries its usage; ``model`` is
    the model it ran on (to price it)."""

    id: str
    name: str
    label: str
    event: AgentEvent
    model: str = ""
    kind: Literal["subagent"] = "subagent"


AgentEvent = (
    TextDeltaEvent
    | ToolCallEvent
    | ToolOutputEvent
    | FileDiffEvent
    | ToolResultEvent
    | PlanUpdatedEvent
    | ApprovalRequestEvent
    | UsageEvent
    | CompactionEvent
    | RetryEvent
    | TurnEndEvent
    | ErrorEvent
    | DoneEvent
    | SubagentEvent
)
