"""OpenAI-compatible Chat Completions over SSE (``POST {base_url}/chat/completions``).

Works with OpenAI and compatible servers (vLLM, llama.cpp, LM Studio, OpenRouter,
Ollama's ``/v1``): missing fields are tolerated, as are comments, keep-alives and a
stream that ends without ``data: [DONE]`` once a finish reason was given. Usage is
normalised like Anthropic's: ``input_tokens`` excludes the cached prompt tokens.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from aiagent.contracts.messages import (
    NO_VISION,
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
    StreamEvent,
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
    join_url,
    load_event,
    parse_tool_arguments,
)

FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}
ATTACHED = "attached in the next message"
RETRYABLE_CODES = frozenset({"server_error", "rate_limit_exceeded", "overloaded"})


class OpenAIProvider(WireProvider):
    name = "openai"

    def wire_request(self, req: CompletionRequest) -> WireRequest:
        url = join_url(self.config.base_url, "/chat/completions")
        official = urlsplit(url).hostname == "api.openai.com"
        body = request_body(req, official=official, tool_choice=self.config.tool_choice,
                            stream=self.config.stream, vision=self.vision(req.model))
        return WireRequest(self.name, req.model, url, self._headers(), body)

    def decoder(self) -> Decoder:
        return decode_stream if self.config.stream else decode_whole

    def _headers(self) -> dict[str, str]:
        headers = {"accept": "text/event-stream"}
        if self.config.api_key:
            headers["authorization"] = f"Bearer {self.config.api_key}"
        return headers


# ---- request -------------------------------------------------------------------------


def request_body(
    req: CompletionRequest, *, official: bool = False, tool_choice: str = "auto", stream: bool = True,
    vision: bool = False,
) -> dict[str, Any]:
    """The request. ``official`` (api.openai.com) uses ``max_completion_tokens``, which
    newer OpenAI models require; compatible servers know ``max_tokens``."""
    messages: list[dict[str, Any]] = []
    if req.system:
        messages.append({"role": "system", "content": req.system})
    messages += convert_messages(req.messages, vision)
    body: dict[str, Any] = {"model": req.model, "messages": messages, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    body["max_completion_tokens" if official else "max_tokens"] = req.max_tokens
    if req.tools:
        body["tools"] = convert_tools(req.tools)
        choice = forced_choice(tool_choice, req)
        if choice:
            body["tool_choice"] = choice if choice in ("auto", "required", "none") else {
                "type": "function", "function": {"name": choice}}
    if req.temperature is not None:
        body["temperature"] = req.temperature
    return body


def convert_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
        }
        for t in tools
    ]


def convert_messages(messages: list[Message], vision: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            out.append(_assistant(message))
            continue
        results = [b for b in message.content if isinstance(b, ToolResultBlock)]
        for block in results:
            content = block.text_with_notes(ATTACHED if vision else NO_VISION)
            out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
        if vision and any(b.images for b in results):
            out.append({"role": "user", "content": image_parts(results)})
        text = message.text
        if message.attached and vision:
            parts = [_image_url(b.image) for b in message.attached]
            out.append({"role": "user", "content": parts + ([{"type": "text", "text": text}] if text else [])})
        elif message.attached or text or not results:
            notes = [b.note(NO_VISION) for b in message.attached]
            out.append({"role": "user", "content": "\n".join([*notes, text]) if notes else text})
    return out


def _image_url(image: ImagePart) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{image.media_type};base64,{image.data}"}}


def image_parts(results: list[ToolResultBlock]) -> list[dict[str, Any]]:
    """The images of tool results as one user message's parts: a ``tool`` message takes
    text only, so they follow the results, each named by the call that returned it."""
    parts: list[dict[str, Any]] = []
    for block in results:
        for image in block.images:
            parts.append({"type": "text", "text": f"[image from tool call {block.tool_use_id}]"})
            parts.append(_image_url(image))
    return parts


def _assistant(message: Message) -> dict[str, Any]:
    calls = [_tool_call(b) for b in message.content if isinstance(b, ToolUseBlock)]
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    # Never ``null``: OpenAI allows it beside tool calls, but strict servers do not
    # (llama.cpp's answers 500 "Expected 'content' to be a string or an array").
    entry: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        entry["tool_calls"] = calls
    return entry


def _tool_call(block: ToolUseBlock) -> dict[str, Any]:
    """The arguments as the model sent them; invalid ones are sent as the parsed ``{}``
    because some servers' chat templates fail on arguments that are not JSON."""
    usable = block.raw_input is not None and block.raw_input.strip() and block.input_error is None
    arguments = block.raw_input if usable else json.dumps(block.input)
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": arguments},
    }


# ---- response ------------------------------------------------------------------------


@dataclass
class _CallDraft:
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)

    def finish(self, index: int) -> ToolUse:
        raw = "".join(self.parts)
        args, error = parse_tool_arguments(raw)
        tool_id = self.id or f"call_{index}_{uuid.uuid4().hex[:12]}"
        return ToolUse(ToolUseBlock(tool_id, self.name, args, raw_input=raw, input_error=error))


@dataclass
class _Response:
    calls: dict[int, _CallDraft] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: UsageReport | None = None

    def add_call(self, delta: dict[str, Any]) -> int:
        """Take one tool-call delta; the number of characters it added."""
        function = as_dict(delta.get("function"))
        index = delta.get("index")
        if not isinstance(index, int):
            index = self._guess_index(delta.get("id"), function.get("name"))
        draft = self.calls.setdefault(index, _CallDraft())
        draft.id = draft.id or str(delta.get("id") or "")
        draft.name = draft.name or str(function.get("name") or "")
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # a few servers send an object
            arguments = json.dumps(arguments)
        if not isinstance(arguments, str):
            return len(str(function.get("name") or ""))
        draft.parts.append(arguments)
        return len(arguments) + len(str(function.get("name") or ""))

    def _guess_index(self, new_id: object, name: object) -> int:
        """Some servers leave ``index`` out: a new id, or a second name without an id,
        starts a new call."""
        last = max(self.calls, default=-1)
        if last < 0:
            return 0
        current = self.calls[last]
        fresh = new_id != current.id if new_id else bool(name and current.name)
        return last + 1 if fresh else last

    def finish(self) -> Iterator[StreamEvent]:
        for index in sorted(self.calls):
            yield self.calls[index].finish(index)
        if self.usage is not None:
            yield self.usage
        reason = FINISH_REASONS.get(self.finish_reason or "stop", self.finish_reason or "end_turn")
        yield Stop("tool_use" if self.calls and reason == "end_turn" else reason)


async def decode_stream(lines: AsyncIterator[str]) -> AsyncGenerator[WireEvent, None]:
    """Provider-neutral events from the chat completion chunks."""
    response = _Response()
    async for sse in iter_sse(lines):
        if sse.data.strip() == "[DONE]":
            break
        for event in _handle(response, load_event(sse.data)):
            yield event
    else:
        if response.finish_reason is None:
            return  # cut before the end: the caller retries
    for event in response.finish():
        yield event


async def decode_whole(lines: AsyncIterator[str]) -> AsyncGenerator[WireEvent, None]:
    """Provider-neutral events from a whole (not streamed) chat completion."""
    data = load_event("\n".join([line async for line in lines]))
    if "error" in data:
        raise _stream_error(data["error"])
    response = _Response()
    choices = data.get("choices")
    choice = as_dict(choices[0]) if isinstance(choices, list) and choices else {}
    message = as_dict(choice.get("message"))
    content = message.get("content")
    if isinstance(content, str) and content:
        yield TextDelta(content)
    calls = message.get("tool_calls")
    for index, call in enumerate(calls if isinstance(calls, list) else []):
        yield ToolProgress(response.add_call({"index": index, **as_dict(call)}))
    usage = as_dict(data.get("usage"))
    if usage:
        response.usage = _usage(usage)
    response.finish_reason = str(choice.get("finish_reason") or "stop")
    for event in response.finish():
        yield event


def _handle(response: _Response, chunk: dict[str, Any]) -> Iterator[WireEvent]:
    if "error" in chunk:
        raise _stream_error(chunk["error"])
    usage = as_dict(chunk.get("usage"))
    if usage:
        response.usage = _usage(usage)
    choices = chunk.get("choices")
    for choice in choices if isinstance(choices, list) else []:
        choice = as_dict(choice)
        delta = as_dict(choice.get("delta"))
        content = delta.get("content")
        if isinstance(content, str) and content:
            yield TextDelta(content)
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            yield ToolProgress(response.add_call(as_dict(call)))
        if choice.get("finish_reason"):
            response.finish_reason = str(choice["finish_reason"])


def _usage(usage: dict[str, Any]) -> UsageReport:
    cached = as_int(as_dict(usage.get("prompt_tokens_details")).get("cached_tokens"))
    prompt = as_int(usage.get("prompt_tokens"))
    return UsageReport(
        Usage(
            input_tokens=max(0, prompt - cached),
            output_tokens=as_int(usage.get("completion_tokens")),
            cache_read_tokens=cached,
        )
    )


def _stream_error(error: object) -> ProviderError:
    """An error sent inside the stream (OpenRouter and others do this)."""
    detail = as_dict(error)
    message = detail.get("message") if detail else error
    code = detail.get("code") if detail else None
    text = f"openai: stream error: {message or 'no details'}"
    retry = (isinstance(code, int) and (code == 429 or code >= 500)) or code in RETRYABLE_CODES
    return RetryableError(text) if retry else ProviderError(text)
