"""The ``<shell>`` tag protocol, for models without native tool calls.

No tools are offered. The answer's ``<shell>…</shell>`` blocks (parsed by
:mod:`aiagent.agent.tools.shell.tags`) run as ``shell_command`` calls, with the same approval,
hooks and events as a native call; the assistant message stays verbatim, and the results
come back as one user message of ``$ command`` and its output, each capped at
``[tools.tags] max_result_chars``, for at most ``max_rounds`` rounds per run.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from importlib import resources
from typing import Any

from aiagent.agent.core.protocols.native import NativeProtocol
from aiagent.agent.tools.base import ToolRegistry
from aiagent.agent.tools.shell.tags import (
    DEFAULT_MAX_RESULT_CHARS,
    DEFAULT_MAX_ROUNDS,
    cap,
    extract_commands,
)
from aiagent.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import ToolSpec


class TagsProtocol:
    base_prompt = "prompts/system_tags.md"
    #: the skills index asks for ``activate_skill``, a tool this protocol cannot call
    hidden_fragments = frozenset({"Skills"})

    def __init__(self, tool_settings: Mapping[str, Any] | None = None) -> None:
        tags = (tool_settings or {}).get("tags", {})
        self.max_rounds = int(tags.get("max_rounds", DEFAULT_MAX_ROUNDS))
        self.max_result_chars = int(tags.get("max_result_chars", DEFAULT_MAX_RESULT_CHARS))
        self.rounds = 0
        self._tags = False  # whether the last calls came from tags (else native: answered natively)
        self._native = NativeProtocol()

    def prompt_fragments(self) -> list[PromptFragment]:
        text = resources.files("aiagent.agent.core").joinpath("prompts/shell_tags.md").read_text("utf-8")
        return [PromptFragment("Running commands", text.strip())]

    def begin_run(self) -> None:
        self.rounds = 0

    def offered_tools(self, tools: ToolRegistry, offered: Collection[str] | None) -> list[ToolSpec]:
        return []

    def calls(self, answer: Message, turn: int) -> list[ToolUseBlock]:
        self._tags = False
        if answer.tool_uses:
            return answer.tool_uses
        commands = extract_commands(answer.text)
        if not commands or self.rounds >= self.max_rounds:
            return []
        self.rounds += 1
        self._tags = True
        return [ToolUseBlock(f"shell-tag-{turn}-{i}", "shell_command", {"command": command})
                for i, command in enumerate(commands)]

    def results_message(self, uses: list[ToolUseBlock], results: list[ToolResultBlock],
                        finished: bool) -> Message | None:
        """``$ command`` and its capped output per call; nothing when the run stopped
        midway (the history ends with the assistant's verbatim text)."""
        if not self._tags:
            return self._native.results_message(uses, results, finished)
        if not finished:
            return None
        parts = [f"$ {use.input['command']}\n{cap(result.content, self.max_result_chars)}"
                 for use, result in zip(uses, results, strict=True)]
        return Message.user("\n\n".join(parts))
