"""Ollama's native chat API over NDJSON (``POST {base_url}/api/chat``).

The base URL may be given as Ollama's own ``OLLAMA_HOST`` is: ``localhost:11434``,
``0.0.0.0`` or a full URL. Tool calls arrive whole, arguments as objects, usually
without ids: ids are made up so results can be matched to calls.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Any

from aiagent.contracts.messages import (
    NO_VISION,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from aiagent.contracts.providers import (
    CompletionRequest,
    ProviderError,
    Stop,
    StreamEvent,
    TextDelta,
    ToolUse,
    UsageReport,
)
from aiagent.infra.providers.hosts import host_url
from aiagent.infra.providers.openai import ATTACHED, convert_tools
from aiagent.infra.providers.wire import (
    Decoder,
    WireProvider,
    WireRequest,
    as_dict,
    as_int,
    iter_ndjson,
    join_url,
    parse_tool_arguments,
)

DONE_REASONS = {"stop": "end_turn", "length": "max_tokens"}


class OllamaProvider(WireProvider):
    name = "ollama"

    def wire_request(self, req: CompletionRequest) -> WireRequest:
        url = join_url(host_url(self.config.base_url), "/api/chat")
        body = request_body(req, self.vision(req.model))
        return WireRequest(self.name, req.model, url, self._headers(), body)

    def decoder(self) -> Decoder:
        return decode_stream

    def probe_base(self) -> str:
        return host_url(self.config.base_url)

    def _headers(self) -> dict[str, str]:
        headers = {"accept": "application/x-ndjson"}
        if self.config.api_key:  # Ollama behind an authenticating proxy
            headers["authorization"] = f"Bearer {self.config.api_key}"
        return headers


# ---- request -------------------------------------------------------------------------


def request_body(req: CompletionRequest, vision: bool = False) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if req.system:
        messages.append({"role": "system", "content": req.system})
    messages += convert_messages(req.messages, vision)
    options: dict[str, Any] = {"num_predict": req.max_tokens}
    if req.temperature is not None:
        options["temperature"] = req.temperature
    body: dict[str, Any] = {"model": req.model, "messages": messages, "stream": True, "options": options}
    if req.tools:
        body["tools"] = convert_tools(req.tools)
    return body


def convert_messages(messages: list[Message], vision: bool = False) -> list[dict[str, Any]]:
    names = {b.id: b.name for m in messages for b in m.tool_uses}
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            out.append(_assistant(message))
            continue
        results = [b for b in message.content if isinstance(b, ToolResultBlock)]
        for block in results:
            out.append(_tool_result(block, names.get(block.tool_use_id, ""), vision))
        if vision and any(b.images for b in results):
            out.append(_images_message(results))
        text = message.text
        if message.attached or text or not results:
            out.append(_user(message, text, vision))
    return out


def _user(message: Message, text: str, vision: bool) -> dict[str, Any]:
    """The user's message; the images they attached in its ``images`` field (base64), or
    a note for each when the model has no vision."""
    if vision and message.attached:
        return {"role": "user", "content": text, "images": [b.image.data for b in message.attached]}
    notes = [b.note(NO_VISION) for b in message.attached]
    return {"role": "user", "content": "\n".join([*notes, text]) if notes else text}


def _assistant(message: Message) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    entry: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [
        {"id": b.id, "function": {"name": b.name, "arguments": b.input}}
        for b in message.content
        if isinstance(b, ToolUseBlock)
    ]
    if calls:
        entry["tool_calls"] = calls
    return entry


def _tool_result(block: ToolResultBlock, name: str, vision: bool) -> dict[str, Any]:
    content = block.text_with_notes(ATTACHED if vision else NO_VISION)
    return {"role": "tool", "content": content, "tool_name": name, "tool_call_id": block.tool_use_id}


def _images_message(results: list[ToolResultBlock]) -> dict[str, Any]:
    """The tool results' images in the ``images`` field (base64) of a user message that
    follows them: chat templates show a message's images, and not every one a tool's."""
    calls = ", ".join(b.tool_use_id for b in results if b.images)
    images = [image.data for b in results for image in b.images]
    return {"role": "user", "content": f"[images from tool calls {calls}]", "images": images}


# ---- response ------------------------------------------------------------------------


async def decode_stream(lines: AsyncIterator[str]) -> AsyncGenerator[StreamEvent, None]:
    """Provider-neutral events from Ollama's NDJSON chunks."""
    calls = 0
    async for chunk in iter_ndjson(lines):
        if "error" in chunk:
            raise ProviderError(f"ollama: {chunk['error']}")
        message = as_dict(chunk.get("message"))
        content = message.get("content")
        if isinstance(content, str) and content:
            yield TextDelta(content)
        tool_calls = message.get("tool_calls")
        for call in tool_calls if isinstance(tool_calls, list) else []:
            yield _tool_use(as_dict(call), calls)
            calls += 1
        if chunk.get("done"):
            for event in _finish(chunk, calls > 0):
                yield event
            return


def _tool_use(call: dict[str, Any], index: int) -> ToolUse:
    function = as_dict(call.get("function"))
    tool_id = str(call.get("id") or f"call_{index}_{uuid.uuid4().hex[:12]}")
    name = str(function.get("name") or "")
    arguments = function.get("arguments")
    if isinstance(arguments, dict):
        return ToolUse(ToolUseBlock(tool_id, name, arguments, raw_input=json.dumps(arguments)))
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    args, error = parse_tool_arguments(raw) if arguments is not None else ({}, None)
    return ToolUse(ToolUseBlock(tool_id, name, args, raw_input=raw, input_error=error))


def _finish(chunk: dict[str, Any], had_calls: bool) -> Iterator[StreamEvent]:
    if "prompt_eval_count" in chunk or "eval_count" in chunk:  # else unknown, not 0
        yield UsageReport(
            Usage(
                input_tokens=as_int(chunk.get("prompt_eval_count")),
                output_tokens=as_int(chunk.get("eval_count")),
            )
        )
    given = chunk.get("done_reason")
    reason = DONE_REASONS.get(str(given), str(given)) if given else "end_turn"
    yield Stop("tool_use" if had_calls and reason == "end_turn" else reason)
