"""Scripting FakeLLM for subagent tests: who sent a request (the parent or which child) and
what it holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiagent.testing import FakeLLM, ToolCall, Turn

PARENT_PROMPT = "Delegate the reading."


def env_for(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def first_user_text(body: dict[str, Any]) -> str:
    first = body["messages"][0]["content"]
    return first if isinstance(first, str) else "".join(b.get("text", "") for b in first)


def who(body: dict[str, Any]) -> str:
    """``parent`` or the child's prompt."""
    text = first_user_text(body)
    return "parent" if PARENT_PROMPT in text else text


def turn_of(body: dict[str, Any]) -> int:
    """How many answers of the model this request already holds (0: the first request)."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def system_of(body: dict[str, Any]) -> str:
    system = body.get("system", "")
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)


def offered(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


def task(prompt: str, agent: str | None = None, description: str = "a task") -> ToolCall:
    args = {"description": description, "prompt": prompt}
    if agent:
        args["agent"] = agent
    return ToolCall("task", args)


Answer = Callable[[dict[str, Any]], Turn]


def conversation(parent: list[Turn], children: dict[str, list[Turn]]) -> Answer:
    """A responder: the parent's turns in order, each child's turns in order."""

    def answer(body: dict[str, Any]) -> Turn:
        sender = who(body)
        turns = parent if sender == "parent" else children[sender]
        index = turn_of(body)
        return turns[index] if index < len(turns) else Turn(text="(script exhausted)")

    return answer
