"""Hook points in the agent loop, for skills and front-ends.

- ``on_conversation_start(messages)``: once, before the first request.
- ``on_before_tool_call(call)``: may change ``call.args`` or cancel the call by returning
  a :class:`HookVerdict` with ``cancel`` set (the reason goes to the model).
- ``on_after_tool_result(call, result)``: may return a replacement result.
- ``on_after_response(text)``: may return a replacement for the final answer, or raise
  :class:`GoOn` to make the model continue (a Stop hook's "block").
- ``on_user_turn(text)``: each later user message (the first is the conversation start).
- ``on_close()``: the front-end is done with the agent; release what hooks hold.
Hooks run in the order registered. A hook that raises is reported to the model as an
error result (tool hooks) or ends the run with the message (others).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiagent.contracts.messages import Message
from aiagent.contracts.tools import ToolResult


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    args: dict[str, Any]


class GoOn(Exception):  # noqa: N818 - an instruction, not an error
    """Raised by an ``on_after_response`` hook: the run does not end; ``instruction`` is
    added as the next user message and the model is asked again."""

    def __init__(self, instruction: str) -> None:
        super().__init__(instruction)
        self.instruction = instruction


@dataclass(frozen=True, slots=True)
class HookVerdict:
    cancel: bool = False
    reason: str = ""


ConversationStartHook = Callable[[list[Message]], Awaitable[None]]
BeforeToolHook = Callable[[ToolCall], Awaitable[HookVerdict | None]]
AfterToolHook = Callable[[ToolCall, ToolResult], Awaitable[ToolResult | None]]
AfterResponseHook = Callable[[str], Awaitable[str | None]]
UserTurnHook = Callable[[str], Awaitable[None]]
CloseHook = Callable[[], Awaitable[None]]


@dataclass(slots=True)
class Hooks:
    on_conversation_start: list[ConversationStartHook] = field(default_factory=list)
    on_before_tool_call: list[BeforeToolHook] = field(default_factory=list)
    on_after_tool_result: list[AfterToolHook] = field(default_factory=list)
    on_after_response: list[AfterResponseHook] = field(default_factory=list)
    on_user_turn: list[UserTurnHook] = field(default_factory=list)
    on_close: list[CloseHook] = field(default_factory=list)

    def extend(self, other: Hooks) -> None:
        """Add ``other``'s hooks after these, phase by phase."""
        self.on_conversation_start.extend(other.on_conversation_start)
        self.on_before_tool_call.extend(other.on_before_tool_call)
        self.on_after_tool_result.extend(other.on_after_tool_result)
        self.on_after_response.extend(other.on_after_response)
        self.on_user_turn.extend(other.on_user_turn)
        self.on_close.extend(other.on_close)

    async def user_turn(self, text: str) -> None:
        for hook in self.on_user_turn:
            await hook(text)

    async def close(self) -> None:
        for hook in self.on_close:
            await hook()

    async def conversation_start(self, messages: list[Message]) -> None:
        for hook in self.on_conversation_start:
            await hook(messages)

    async def before_tool_call(self, call: ToolCall) -> HookVerdict | None:
        for hook in self.on_before_tool_call:
            verdict = await hook(call)
            if verdict is not None and verdict.cancel:
                return verdict
        return None

    async def after_tool_result(self, call: ToolCall, result: ToolResult) -> ToolResult:
        for hook in self.on_after_tool_result:
            result = await hook(call, result) or result
        return result

    async def after_response(self, text: str) -> str:
        for hook in self.on_after_response:
            replaced = await hook(text)
            text = text if replaced is None else replaced
        return text
