"""Native tool calls: offered specs in the request, tool-use blocks back, tool results."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.messages import Block, Message, ToolResultBlock, ToolUseBlock
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import ToolSpec


class NativeProtocol:
    base_prompt = "prompts/system.md"
    hidden_fragments: frozenset[str] = frozenset()

    def __init__(self, tool_settings: Mapping[str, Any] | None = None) -> None:
        pass

    def prompt_fragments(self) -> list[PromptFragment]:
        return []

    def begin_run(self) -> None:
        pass

    def offered_tools(self, tools: ToolRegistry, offered: Collection[str] | None) -> list[ToolSpec]:
        return tools.specs(offered)

    def calls(self, answer: Message, turn: int) -> list[ToolUseBlock]:
        return answer.tool_uses

    def results_message(self, uses: list[ToolUseBlock], results: list[ToolResultBlock],
                        finished: bool) -> Message:
        """Every call gets its result, finished or not, so the history stays valid."""
        blocks: list[Block] = list(results)
        return Message("user", blocks)
