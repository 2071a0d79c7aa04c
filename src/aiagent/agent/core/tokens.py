"""Token counts before the provider reports them, and the context window of a model.

The estimate is deliberately simple (about four characters a token, plus a little per
message and block); the context manager corrects it with the provider's reported usage.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources

from aiagent.contracts.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.providers import ToolSpec

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
BLOCK_OVERHEAD = 3
IMAGE_TOKENS = 1600  # what a model bills for an image it scales down to about 1.15 megapixels


def text_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def message_tokens(message: Message) -> int:
    total = MESSAGE_OVERHEAD
    for block in message.content:
        total += BLOCK_OVERHEAD
        if isinstance(block, TextBlock):
            total += text_tokens(block.text)
        elif isinstance(block, ToolUseBlock):
            raw = block.raw_input if block.raw_input is not None else json.dumps(block.input)
            total += text_tokens(block.name) + text_tokens(raw)
        elif isinstance(block, ToolResultBlock):
            total += text_tokens(block.content) + IMAGE_TOKENS * len(block.images)
        elif isinstance(block, ImageBlock):
            total += IMAGE_TOKENS
    return total


def messages_tokens(messages: Iterable[Message]) -> int:
    return sum(message_tokens(m) for m in messages)


def tools_tokens(tools: Iterable[ToolSpec]) -> int:
    return sum(
        text_tokens(t.name) + text_tokens(t.description) + text_tokens(json.dumps(t.input_schema))
        for t in tools
    )


@cache
def known_windows() -> dict[str, int]:
    text = resources.files("aiagent.agent.core").joinpath("context_windows.toml").read_text("utf-8")
    return {str(k): int(v) for k, v in tomllib.loads(text).items()}


def context_window(model: str, overrides: Mapping[str, int] | None = None) -> int | None:
    """The window of ``model``: an exact override, else the longest matching prefix."""
    table = {**known_windows(), **dict(overrides or {})}
    if model in table:
        return table[model]
    name = model.rsplit("/", 1)[-1]  # "openrouter/anthropic/claude-…" style names
    matches = [p for p in table if name.startswith(p) or model.startswith(p)]
    return table[max(matches, key=len)] if matches else None


def budget_for(model: str, configured: int, overrides: Mapping[str, int] | None = None) -> int:
    """Tokens a request may use: the configured budget, capped by the model's window."""
    window = context_window(model, overrides)
    return min(configured, window) if window else configured
