"""A piece of the system prompt, contributed by project rules or an active skill."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PromptFragment:
    title: str
    text: str
