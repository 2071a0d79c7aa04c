"""What is sent when the history no longer fits: a plan applied to the full history.

The stored history never changes. A :class:`Plan` says which tool results are sent
trimmed and how many of the oldest messages are replaced by a summary; :func:`view` applies
it. The view always starts with a user message, never separates a tool call from its
result, and always contains the latest user prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiagent.agent.core.tokens import message_tokens, text_tokens
from aiagent.contracts.messages import (
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from aiagent.contracts.providers import CompletionRequest, Provider, Restart, TextDelta

SUMMARY_HEADER = "[Summary of the earlier part of this conversation, made to save context]"
OMITTED_HEADER = "[Earlier messages were left out to fit the context window]"
TRANSCRIPT_RESULT_CHARS = 2000


@dataclass(slots=True)
class Plan:
    upto: int = 0  # history[:upto] is replaced by the summary
    summary: str = ""
    trimmed: list[str] = field(default_factory=list)  # tool_use ids sent trimmed

    def to_dict(self) -> dict[str, Any]:
        return {"upto": self.upto, "summary": self.summary, "trimmed": list(self.trimmed)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Plan:
        return cls(int(data.get("upto", 0)), str(data.get("summary", "")),
                   [str(t) for t in data.get("trimmed", [])])


def is_prompt(message: Message) -> bool:
    """A user message that is not (only) tool results: something the person wrote."""
    return message.role == "user" and not any(
        isinstance(b, ToolResultBlock) for b in message.content
    )


def trim_note(content: str) -> str:
    return f"[tool output trimmed to save context; it was {len(content)} characters]"


def trimmed_message(message: Message, trimmed: set[str]) -> Message:
    if not trimmed or message.role != "user":
        return message
    blocks: list[Block] = [
        ToolResultBlock(b.tool_use_id, trim_note(b.content), b.is_error)
        if isinstance(b, ToolResultBlock) and b.tool_use_id in trimmed else b
        for b in message.content
    ]
    return Message(message.role, blocks)


def view(history: list[Message], plan: Plan) -> list[Message]:
    trimmed = set(plan.trimmed)
    tail = [trimmed_message(m, trimmed) for m in history[plan.upto:]]
    if plan.upto <= 0 or plan.upto > len(history):
        return tail
    header = TextBlock(f"{SUMMARY_HEADER}\n\n{plan.summary}" if plan.summary else OMITTED_HEADER)
    if tail and is_prompt(tail[0]):
        return [Message("user", [header, *tail[0].content]), *tail[1:]]
    prompt = latest_prompt(history[: plan.upto]) if latest_prompt(tail) is None else None
    blocks: list[Block] = [header, *(prompt.content if prompt is not None else [])]
    return [Message("user", blocks), *tail]


def latest_prompt(history: list[Message]) -> Message | None:
    return next((m for m in reversed(history) if is_prompt(m)), None)


def valid_cuts(history: list[Message], start: int) -> list[int]:
    """Indexes where the kept part may begin without splitting a tool call from its result."""
    return [i for i in range(max(start, 1), len(history))
            if history[i].role == "assistant" or is_prompt(history[i])]


def choose_cut(history: list[Message], start: int, keep_tokens: int) -> int | None:
    """The earliest valid cut after ``start`` whose tail fits in ``keep_tokens``; failing
    that, the latest valid cut (keep as little as the protocol allows)."""
    cuts = valid_cuts(history, start + 1)
    if not cuts:
        return None
    suffix = [0] * (len(history) + 1)
    for i in range(len(history) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + message_tokens(history[i])
    fitting = [c for c in cuts if suffix[c] <= keep_tokens]
    return fitting[0] if fitting else cuts[-1]


# ---- the summary request -------------------------------------------------------------


def compaction_prompt() -> str:
    return resources.files("aiagent.agent.core").joinpath("prompts/compact.md").read_text("utf-8")


def transcript(messages: list[Message], previous: str, limit_tokens: int) -> str:
    """The messages as plain text for the summariser, cut to ``limit_tokens`` by leaving
    out the oldest messages first (the previous summary is always kept)."""
    parts = [_render(m) for m in messages]
    head = f"Summary so far:\n{previous}\n" if previous else ""
    budget = limit_tokens - text_tokens(head)
    kept: list[str] = []
    for part in reversed(parts):
        cost = text_tokens(part)
        if cost > budget:
            break
        kept.append(part)
        budget -= cost
    dropped = len(parts) - len(kept)
    note = f"[{dropped} older messages left out]\n" if dropped else ""
    return head + note + "\n".join(reversed(kept))


def _render(message: Message) -> str:
    lines = []
    for block in message.content:
        if isinstance(block, TextBlock):
            who = "User" if message.role == "user" else "Assistant"
            lines.append(f"{who}: {block.text}")
        elif isinstance(block, ToolUseBlock):
            lines.append(f"Tool call {block.name}: {json.dumps(block.input, ensure_ascii=False)}")
        elif isinstance(block, ToolResultBlock):
            lines.append(f"Tool result{' (error)' if block.is_error else ''}: "
                         f"{_clip(block.content, TRANSCRIPT_RESULT_CHARS)}")
        elif isinstance(block, ImageBlock):
            lines.append(block.note("attached by the user"))
    return "\n".join(lines) + "\n"


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - limit} characters …]\n{text[-half:]}"


async def summarise(provider: Provider, model: str, text: str, max_tokens: int) -> str:
    """Ask the model for the summary; raises what the provider raises."""
    request = CompletionRequest(
        model=model, system=compaction_prompt(), messages=[Message.user(text)],
        tools=[], max_tokens=max_tokens,
    )
    pieces: list[str] = []
    async for event in provider.stream(request):
        if isinstance(event, TextDelta):
            pieces.append(event.text)
        elif isinstance(event, Restart):
            pieces.clear()
    summary = "".join(pieces).strip()
    if not summary:
        raise ValueError("the model returned an empty summary")
    return summary
