"""Public testing helpers: :class:`FakeLLM`, a scripted LLM server speaking the real
Anthropic, OpenAI and Ollama wire formats on 127.0.0.1.

    from aiagent.testing import FakeLLM, Turn, ToolCall

    script = [Turn(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]), Turn(text="Done.")]
    with FakeLLM(script) as fake:
        ...  # base URL fake.url (OpenAI: fake.url + "/v1"); fake.requests holds what came in

Names are imported when first used, so ``python -m aiagent.testing.fakellm`` runs cleanly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiagent.testing.fakellm import FakeLLM
    from aiagent.testing.script import ScriptError, ToolCall, Turn, load_script

__all__ = ["FakeLLM", "ScriptError", "ToolCall", "Turn", "load_script"]

_HOMES = {
    "FakeLLM": "aiagent.testing.fakellm",
    "ScriptError": "aiagent.testing.script",
    "ToolCall": "aiagent.testing.script",
    "Turn": "aiagent.testing.script",
    "load_script": "aiagent.testing.script",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
