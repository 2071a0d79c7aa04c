"""Golden tests: the exact request body each wire format gets for one conversation that
has every kind of message (system, user, assistant text, assistant tool calls without
text, tool results, an error result, a forced tool choice). Regenerate after a deliberate
change with ``AIAGENT_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.contracts.providers import CompletionRequest, ToolSpec
from aiagent.infra.providers import anthropic, ollama, openai

GOLDEN = Path(__file__).with_name("golden")
READ = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"file_path": {"type": "string"}}})

HISTORY = [
    Message.user("Read a.txt"),
    Message("assistant", [ToolUseBlock("c1", "read_file", {"file_path": "a.txt"}, raw_input='{"file_path": "a.txt"}')]),
    Message("user", [ToolResultBlock("c1", "hello")]),
    Message("assistant", [
        TextBlock("Now two calls."),
        ToolUseBlock("c2", "read_file", {"file_path": "b.txt"}, raw_input='{"file_path":"b.txt"}'),
        ToolUseBlock("c3", "read_file", {}, raw_input="{oops", input_error="not JSON"),
    ]),
    Message("user", [ToolResultBlock("c2", "ok"), ToolResultBlock("c3", "boom", is_error=True)]),
    Message("assistant", [TextBlock("Done.")]),
    Message.user("Thanks"),
]


def _request(messages: list[Message]) -> CompletionRequest:
    return CompletionRequest("m", "You are a test.", messages, [READ], max_tokens=100)


BODIES: dict[str, Any] = {
    "openai": lambda req, choice: openai.request_body(req, tool_choice=choice),
    "anthropic": lambda req, choice: anthropic.request_body(req, tool_choice=choice),
    "ollama": lambda req, choice: ollama.request_body(req),
}


def _bodies(name: str) -> dict[str, Any]:
    make = BODIES[name]
    return {
        "conversation": make(_request(HISTORY), "auto"),
        "forced_first_request": make(_request(HISTORY[:1]), "read_file"),
        "forced_after_tool_results": make(_request(HISTORY[:3]), "read_file"),
    }


@pytest.mark.parametrize("name", sorted(BODIES))
def test_request_bodies_match_golden(name: str) -> None:
    path = GOLDEN / f"{name}.json"
    actual = json.dumps(_bodies(name), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("AIAGENT_UPDATE_GOLDEN"):
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


def test_openai_never_sends_null_content() -> None:
    body = _bodies("openai")["conversation"]
    assert all(m.get("content") is not None for m in body["messages"])
    no_text = body["messages"][2]
    assert no_text["role"] == "assistant" and no_text["content"] == "" and no_text["tool_calls"]
