"""Tool-call protocols: how the model asks for tools and how the results go back.

The loop does not know which protocol it speaks; it asks the strategy chosen by name
(``[agent] tool_protocol``) when the agent is made:

- ``native`` (:mod:`.native`): the request offers tool specs; the model answers with
  tool-use blocks; results go back as tool-result blocks.
- ``tags`` (:mod:`.tags`): no tools are offered; the model writes ``<shell>…</shell>`` in
  its text; each command runs as ``shell_command`` and the results go back as one user
  message of ``$ command`` and output.

A new protocol is a class with the :class:`ToolProtocol` methods, registered with
:func:`register_protocol`; the loop needs no change.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from aiagent.contracts.prompt import PromptFragment
from aiagent.contracts.providers import ToolSpec


class ToolProtocol(Protocol):
    """One way of calling tools, as the loop sees it."""

    #: the base system prompt (package data under ``aiagent.agent.core``)
    base_prompt: str
    #: titles of prompt fragments left out because they ask for a tool this protocol lacks
    hidden_fragments: frozenset[str]

    def prompt_fragments(self) -> list[PromptFragment]:
        """Extra instructions on how to call tools with this protocol."""
        ...

    def begin_run(self) -> None:
        """A new run starts (round limits count per run)."""
        ...

    def offered_tools(self, tools: ToolRegistry, offered: Collection[str] | None) -> list[ToolSpec]:
        """The tool specs to put in the model request."""
        ...

    def calls(self, answer: Message, turn: int) -> list[ToolUseBlock]:
        """The calls the model asked for in ``answer``; empty when the run is done."""
        ...

    def results_message(self, uses: list[ToolUseBlock], results: list[ToolResultBlock],
                        finished: bool) -> Message | None:
        """The message that carries ``results`` back. ``finished`` is False when the run
        stopped midway; ``results`` then hold a "not run" result for each call left."""
        ...


ProtocolFactory = Callable[[Mapping[str, Any]], ToolProtocol]
_REGISTRY: dict[str, ProtocolFactory] = {}


def register_protocol(name: str, factory: ProtocolFactory) -> None:
    """Make ``name`` choosable as ``tool_protocol``; ``factory`` gets the ``[tools]`` table."""
    _REGISTRY[name] = factory


def protocol_names() -> list[str]:
    _builtins()
    return sorted(_REGISTRY)


def make_protocol(name: str, tool_settings: Mapping[str, Any]) -> ToolProtocol:
    """The strategy called ``name``; ValueError naming the known ones when there is none."""
    _builtins()
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown tool protocol {name!r} (known: {', '.join(sorted(_REGISTRY))})")
    return factory(tool_settings)


def _builtins() -> None:
    if "native" in _REGISTRY:
        return
    from aiagent.agent.core.protocols.native import NativeProtocol
    from aiagent.agent.core.protocols.tags import TagsProtocol

    _REGISTRY.setdefault("native", NativeProtocol)
    _REGISTRY.setdefault("tags", TagsProtocol)
