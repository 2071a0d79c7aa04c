"""How many tokens a request may ask for: never more than the model's context can hold.

``max_tokens`` comes from the settings (``[provider.X] max_tokens``). The context window
comes from the settings or the built-in table (``ProviderConfig.context_window``, filled by
the builder); when neither knows the model, the server is asked once per run, with a short
timeout: llama.cpp's ``GET /props`` (``default_generation_settings.n_ctx``), an
OpenAI-compatible ``GET /models`` entry (``context_length``, ``max_model_len``, …), or
Ollama's ``POST /api/show`` (``num_ctx``, else ``*.context_length``). Each request then
asks for at most ``window − prompt estimate − margin`` tokens, and never fewer than
``min_output_tokens``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any

from aiagent.contracts.providers import CompletionRequest

CHARS_PER_TOKEN = 3  # on the safe side: a prompt estimated too big only shortens the answer
IMAGE_TOKENS = 1600  # what one image in a tool result may cost (models scale them down)
TEMPLATE_MARGIN = 64  # tokens a chat template adds around the messages
MODEL_KEYS = ("context_length", "max_model_len", "context_window", "max_context_length", "n_ctx")

Fetch = Callable[[str, str, dict[str, Any] | None], Awaitable[object]]


def prompt_estimate(req: CompletionRequest) -> int:
    """A generous token count for the request's prompt (system, messages, tools)."""
    chars = len(req.system)
    for message in req.messages:
        for block in message.content:
            chars += 16 + len(json.dumps(_block_text(block), ensure_ascii=False))
            chars += len(getattr(block, "images", ())) * IMAGE_TOKENS * CHARS_PER_TOKEN
    for tool in req.tools:
        chars += len(tool.name) + len(tool.description) + len(json.dumps(tool.input_schema))
    return chars // CHARS_PER_TOKEN + TEMPLATE_MARGIN


def _block_text(block: Any) -> str:
    for name in ("text", "content", "raw_input"):
        value = getattr(block, name, None)
        if isinstance(value, str):
            return value
    return json.dumps(getattr(block, "input", ""))


def fit_max_tokens(req: CompletionRequest, window: int | None, floor: int) -> CompletionRequest:
    """``req`` asking for no more than the window leaves after its prompt."""
    if not window:
        return req
    room = window - prompt_estimate(req)
    wanted = max(min(req.max_tokens, room), min(floor, req.max_tokens))
    return req if wanted == req.max_tokens else replace(req, max_tokens=wanted)


async def probe_window(provider: str, base_url: str, model: str, fetch: Fetch) -> int | None:
    """The context size the server says it runs ``model`` with, or None."""
    if provider == "ollama":
        return _from_ollama_show(await fetch("POST", base_url + "/api/show", {"model": model}))
    if provider != "openai":
        return None
    root = base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url
    found = _from_props(await fetch("GET", root + "/props", None))
    if found:
        return found
    return _from_models(await fetch("GET", base_url + "/models", None), model)


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _from_props(data: object) -> int | None:
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    nested = settings.get("n_ctx") if isinstance(settings, dict) else None
    return _positive(nested) or _positive(data.get("n_ctx"))


def _from_models(data: object, model: str) -> int | None:
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    usable = [e for e in entries if isinstance(e, dict)]
    chosen = [e for e in usable if e.get("id") == model] or (usable if len(usable) == 1 else [])
    for entry in chosen:
        for found in _candidates(entry):
            return found
    return None


def _candidates(entry: dict[str, Any]) -> Iterable[int]:
    meta = entry.get("meta")
    for table in (entry, meta if isinstance(meta, dict) else {}):
        for key in MODEL_KEYS:
            value = _positive(table.get(key))
            if value:
                yield value


def _from_ollama_show(data: object) -> int | None:
    if not isinstance(data, dict):
        return None
    parameters = data.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            name, _, value = line.strip().partition(" ")
            if name == "num_ctx" and value.strip().isdigit():
                return int(value.strip())
    info = data.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if str(key).endswith(".context_length") and _positive(value):
                return int(value)
    return None
