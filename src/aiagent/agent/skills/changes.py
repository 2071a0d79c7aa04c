"""Who hears that the skills' tools or prompt text changed: the agent, connected by
:func:`aiagent.agent.skills.wiring.attach`. Until something listens, changes go nowhere."""

from __future__ import annotations

from collections.abc import Callable

ToolsChanged = Callable[[list[str], list[str]], None]  # (added, removed)
PromptChanged = Callable[[], None]


class SkillChanges:
    def __init__(self) -> None:
        self._tools: ToolsChanged = lambda added, removed: None
        self._prompt: PromptChanged = lambda: None

    def listen(self, tools: ToolsChanged, prompt: PromptChanged) -> None:
        self._tools, self._prompt = tools, prompt

    def tools(self, added: list[str], removed: list[str]) -> None:
        """Skill tools came (``added``) or went (``removed``), or the workflows changed."""
        self._tools(added, removed)

    def prompt(self) -> None:
        """The skills' prompt fragments changed: build the system prompt again."""
        self._prompt()
