"""Anthropic Messages API over SSE (``POST {base_url}/v1/messages``).

Prompt caching: ``cache_control`` breakpoints go on the system prompt, the last tool
definition and the last message block, so each turn of a long session reads the
previous turn's prefix from the cache. Usage is reported as the API gives it:
``input_tokens`` excludes the cached part (``cache_read_tokens``/``cache_write_tokens``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiagent.contracts.messages import (
    NO_VISION,
    Block,
    ImageBlock,
    ImagePart,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from aiagent.contracts.providers import (
    CompletionRequest,
    ProviderError,
    RetryableError,
    Stop,
    TextDelta,
    ToolSpec,
    ToolUse,
    UsageReport,
    forced_choice,
)
from aiagent.infra.providers.wire import (
    Decoder,
    ToolProgress,
    WireEvent,
    WireProvider,
    WireRequest,
    as_dict,
    as_int,
    iter_sse,
    load_event,
    parse_tool_arguments,
)

API_VERSION = "2023-06-01"
EPHEMERAL = {"type": "ephemeral"}
RETRYABLE_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})


class AnthropicProvider(WireProvider):
    name = "anthropic"

    def wire_request(self, req: CompletionRequest) -> WireRequest:
        url = messages_url(self.config.base_url)
        body = request_body(req, tool_choice=self.config.tool_choice, vision=self.vision(req.model))
        return WireRequest(self.name, req.model, url, self._headers(), body)

    def decoder(self) -> Decoder:
        return decode_stream

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION, "accept": "text/event-stream"}
        if self.config.api_key:
            headers["x-api-key"] = self.config.api_key
        return headers


def messages_url(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


# ---- request -------------------------------------------------------------------------


def request_body(req: CompletionRequest, tool_choice: str = "auto", vision: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": req.model,
        "max_tokens": req.max_tokens,
        "stream": True,
        "messages": convert_messages(req.messages, vision),
    }
    if req.system:
        body["system"] = [{"type": "text", "text": req.system, "cache_control": EPHEMERAL}]
    if req.tools:
        body["tools"] = convert_tools(req.tools)
        choice = forced_choice(tool_choice, req)
        if choice not in ("", "auto"):  # the API's default is auto
            named = {"required": {"type": "any"}, "none": {"type": "none"}}
            body["tool_choice"] = named.get(choice, {"type": "tool", "name": choice})
    if req.temperature is not None:
        body["temperature"] = req.temperature
    return body


def convert_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    out = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]
    out[-1]["cache_control"] = EPHEMERAL
    return out


def convert_messages(messages: list[Message], vision: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        blocks = [b for b in (convert_block(b, vision) for b in _ordered(message)) if b is not None]
        if blocks:
            out.append({"role": message.role, "content": blocks})
    if out:
        out[-1]["content"][-1]["cache_control"] = EPHEMERAL
    return out


def _ordered(message: Message) -> list[Block]:
    """Tool results first in a user message, as the API requires."""
    if message.role != "user":
        return list(message.content)
    results = [b for b in message.content if isinstance(b, ToolResultBlock)]
    return results + [b for b in message.content if not isinstance(b, ToolResultBlock)]


def convert_block(block: Block, vision: bool = False) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ImageBlock):
        return _image(block.image) if vision else {"type": "text", "text": block.note(NO_VISION)}
    result: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": _result_content(block, vision),
    }
    if block.is_error:
        result["is_error"] = True
    return result


def _result_content(block: ToolResultBlock, vision: bool) -> str | list[dict[str, Any]]:
    """The text alone (the usual case), or text and image blocks (base64 sources)."""
    if not block.images or not vision:
        return block.text_with_notes(NO_VISION)
    parts: list[dict[str, Any]] = [{"type": "text", "text": block.content}] if block.content else []
    parts += [_image(image) for image in block.images]
    return parts


def _image(image: ImagePart) -> dict[str, Any]:
    source = {"type": "base64", "media_type": image.media_type, "data": image.data}
    return {"type": "image", "source": source}


# ---- response ------------------------------------------------------------------------


@dataclass
class _ToolDraft:
    id: str
    name: str
    initial: dict[str, Any]
    parts: list[str] = field(default_factory=list)

    def finish(self) -> ToolUse:
        raw = "".join(self.parts)
        if not raw.strip() and self.initial:
            return ToolUse(ToolUseBlock(self.id, self.name, self.initial))
        args, error = parse_tool_arguments(raw)
        return ToolUse(ToolUseBlock(self.id, self.name, args, raw_input=raw, input_error=error))


@dataclass
class _Response:
    """What one streamed message has given so far."""

    usage: dict[str, int] = field(default_factory=dict)
    tools: dict[int, _ToolDraft] = field(default_factory=dict)
    stop_reason: str | None = None

    def take_usage(self, usage: object) -> None:
        for key, value in as_dict(usage).items():
            if isinstance(value, int):
                self.usage[key] = value

    def report(self) -> UsageReport:
        u = self.usage
        return UsageReport(
            Usage(
                input_tokens=as_int(u.get("input_tokens")),
                output_tokens=as_int(u.get("output_tokens")),
                cache_read_tokens=as_int(u.get("cache_read_input_tokens")),
                cache_write_tokens=as_int(u.get("cache_creation_input_tokens")),
            )
        )


async def decode_stream(lines: AsyncIterator[str]) -> AsyncGenerator[WireEvent, None]:
    """Provider-neutral events from the Messages SSE stream."""
    response = _Response()
    async for sse in iter_sse(lines):
        if sse.event == "ping":
            continue
        data = load_event(sse.data)
        kind = data.get("type") or sse.event
        for event in _handle(response, str(kind), data):
            yield event


def _handle(response: _Response, kind: str, data: dict[str, Any]) -> Iterator[WireEvent]:
    if kind == "message_start":
        response.take_usage(as_dict(data.get("message")).get("usage"))
    elif kind == "content_block_start":
        _start_block(response, data)
    elif kind == "content_block_delta":
        yield from _delta(response, data)
    elif kind == "content_block_stop":
        draft = response.tools.pop(as_int(data.get("index")), None)
        if draft is not None:
            yield draft.finish()
    elif kind == "message_delta":
        response.stop_reason = as_dict(data.get("delta")).get("stop_reason") or response.stop_reason
        response.take_usage(data.get("usage"))
    elif kind == "message_stop":
        for index in sorted(response.tools):
            yield response.tools.pop(index).finish()
        if response.usage:  # a server that reports nothing: usage stays unknown, not 0
            yield response.report()
        yield Stop(response.stop_reason or "end_turn")
    elif kind == "error":
        raise stream_error(as_dict(data.get("error")))


def _start_block(response: _Response, data: dict[str, Any]) -> None:
    block = as_dict(data.get("content_block"))
    if block.get("type") == "tool_use":
        index = as_int(data.get("index"))
        tool_id = str(block.get("id") or f"toolu_{index}")
        response.tools[index] = _ToolDraft(tool_id, str(block.get("name", "")), as_dict(block.get("input")))


def _delta(response: _Response, data: dict[str, Any]) -> Iterator[WireEvent]:
    delta = as_dict(data.get("delta"))
    kind = delta.get("type")
    if kind == "text_delta":
        text = delta.get("text")
        if isinstance(text, str) and text:
            yield TextDelta(text)
    elif kind == "input_json_delta":
        draft = response.tools.get(as_int(data.get("index")))
        part = delta.get("partial_json")
        if draft is not None and isinstance(part, str):
            draft.parts.append(part)
            yield ToolProgress(len(part))


def stream_error(error: dict[str, Any]) -> ProviderError:
    kind = str(error.get("type") or "error")
    message = f"anthropic: stream error ({kind}): {error.get('message') or 'no details'}"
    if kind in RETRYABLE_ERRORS:
        return RetryableError(message)
    return ProviderError(message)
