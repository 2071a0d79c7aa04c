"""The three wire formats FakeLLM speaks: a :class:`Turn` as a list of stream events.

Each event is the bytes of one SSE event (Anthropic, OpenAI) or one NDJSON line (Ollama),
written as one HTTP chunk, so ``Turn.cut_after`` and ``Turn.stall`` count in events.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from aiagent.testing.script import ToolCall, Turn, split


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    content_type: str
    preamble: bytes  # written before the events (comments, keep-alives); not counted
    malformed: bytes
    keepalive: bytes = b": keep-alive\n\n"  # what a server sends to say it is still there
    open_text: bytes = b""  # the start of a text event, cut before its string ends


def text_event(fmt: Format, text: str, serial: int = 0) -> bytes:
    """One stream event that carries ``text`` (for generated streams)."""
    if fmt.name == "anthropic":
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
        return _sse("content_block_delta", delta)
    if fmt.name == "openai":
        return _sse(None, {"id": f"chatcmpl-fake-{serial}", "choices": [{"index": 0, "delta": {"content": text}}]})
    line = {"model": "fake", "message": {"role": "assistant", "content": text}, "done": False}
    return (json.dumps(line) + "\n").encode()


def stream_head(fmt: Format, request: dict[str, Any], serial: int) -> list[bytes]:
    """What comes before the first text event of a generated stream."""
    if fmt.name != "anthropic":
        return []
    turn = Turn(text="x")
    return anthropic_events(turn, request, serial)[:3]  # message_start, ping, content_block_start


def _sse(event: str | None, data: object) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


# ---- Anthropic -----------------------------------------------------------------------

ANTHROPIC = Format(
    "anthropic",
    "text/event-stream",
    b"",
    b'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": \n\n',
    open_text=b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
    b'"delta": {"type": "text_delta", "text": "',
)
_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def anthropic_events(turn: Turn, request: dict[str, Any], serial: int) -> list[bytes]:
    read, write = turn.cache
    message: dict[str, Any] = {"id": f"msg_fake_{serial}", "type": "message", "role": "assistant"}
    message["content"] = []
    message |= {"model": request.get("model", "fake"), "stop_reason": None}
    if turn.usage is not None:
        usage = {"input_tokens": turn.usage[0], "output_tokens": 1}
        message["usage"] = usage | {"cache_read_input_tokens": read, "cache_creation_input_tokens": write}
    out = [_sse("message_start", {"type": "message_start", "message": message})]
    out.append(_sse("ping", {"type": "ping"}))
    index = 0
    if turn.text:
        out += _anthropic_block(index, {"type": "text", "text": ""}, "text_delta", "text", turn.text_pieces())
        index += 1
    for n, call in enumerate(turn.tool_calls):
        block = {"type": "tool_use", "id": call.id or f"toolu_fake_{serial}_{n}", "name": call.name, "input": {}}
        pieces = [""] + split(call.raw_arguments(), 3)
        out += _anthropic_block(index, block, "input_json_delta", "partial_json", pieces)
        index += 1
    delta = {"type": "message_delta", "delta": {"stop_reason": turn.stop, "stop_sequence": None}}
    if turn.usage is not None:
        delta["usage"] = {"output_tokens": turn.usage[1]}
    out.append(_sse("message_delta", delta))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return out


def _anthropic_block(
    index: int, block: dict[str, Any], kind: str, key: str, pieces: list[str]
) -> list[bytes]:
    out = [_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})]
    for piece in pieces:
        delta = {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: piece}}
        out.append(_sse("content_block_delta", delta))
    out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    return out


def anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = _ANTHROPIC_ERRORS.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


# ---- OpenAI --------------------------------------------------------------------------

OPENAI = Format(
    "openai",
    "text/event-stream",
    b": keep-alive\n\n",
    b'data: {"choices": [{"index": 0, "delta": {"content": \n\n',
    open_text=b'data: {"choices": [{"index": 0, "delta": {"content": "',
)
_OPENAI_STOPS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "stop_sequence": "stop"}


def openai_events(turn: Turn, request: dict[str, Any], serial: int) -> list[bytes]:
    head = {"id": f"chatcmpl-fake-{serial}", "object": "chat.completion.chunk", "created": int(time.time())}
    head["model"] = request.get("model", "fake")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse(None, head | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": piece}) for piece in turn.text_pieces()]
    for n, call in enumerate(turn.tool_calls):
        function = {"name": call.name, "arguments": ""}
        first = {"index": n, "id": call.id or f"call_fake_{serial}_{n}", "type": "function", "function": function}
        out.append(chunk({"tool_calls": [first]}))
        for piece in split(call.raw_arguments(), 3):
            out.append(chunk({"tool_calls": [{"index": n, "function": {"arguments": piece}}]}))
    out.append(chunk({}, _OPENAI_STOPS.get(turn.stop, turn.stop)))
    if (request.get("stream_options") or {}).get("include_usage") and turn.usage is not None:
        out.append(_sse(None, head | {"choices": [], "usage": _openai_usage(turn, turn.usage)}))
    out.append(b"data: [DONE]\n\n")
    return out


def openai_whole(turn: Turn, request: dict[str, Any], serial: int) -> dict[str, Any]:
    """A whole chat completion (the answer to ``"stream": false``)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id or f"call_fake_{serial}_{n}", "type": "function",
             "function": {"name": call.name, "arguments": call.raw_arguments()}}
            for n, call in enumerate(turn.tool_calls)
        ]
    body: dict[str, Any] = {"id": f"chatcmpl-fake-{serial}", "object": "chat.completion",
                            "created": int(time.time()), "model": request.get("model", "fake")}
    body["choices"] = [{"index": 0, "message": message, "finish_reason": _OPENAI_STOPS.get(turn.stop, turn.stop)}]
    if turn.usage is not None:
        body["usage"] = _openai_usage(turn, turn.usage)
    return body


def _openai_usage(turn: Turn, usage: tuple[int, int]) -> dict[str, Any]:
    prompt = usage[0] + turn.cache[0]
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage[1],
        "total_tokens": prompt + usage[1],
        "prompt_tokens_details": {"cached_tokens": turn.cache[0]},
    }


def openai_error(status: int, message: str) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    code = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}.get(status)
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


# ---- Ollama --------------------------------------------------------------------------

OLLAMA = Format(
    "ollama",
    "application/x-ndjson",
    b"",
    b'{"message": {"role": "assistant", "content": \n',
    keepalive=b"\n",
    open_text=b'{"model": "fake", "message": {"role": "assistant", "content": "',
)
_OLLAMA_STOPS = {"end_turn": "stop", "tool_use": "stop", "max_tokens": "length", "stop_sequence": "stop"}


def ollama_events(turn: Turn, request: dict[str, Any], serial: int) -> list[bytes]:
    head = {"model": request.get("model", "fake"), "created_at": "2025-01-01T00:00:00Z"}

    def line(message: dict[str, Any], **extra: Any) -> bytes:
        body = head | {"message": {"role": "assistant", "content": ""} | message, "done": False}
        return (json.dumps(body | extra) + "\n").encode()

    out = [line({"content": piece}) for piece in turn.text_pieces()]
    if turn.tool_calls:
        calls = [_ollama_call(call) for call in turn.tool_calls]
        out.append(line({"tool_calls": calls}))
    done = {"done": True, "done_reason": _OLLAMA_STOPS.get(turn.stop, turn.stop), "total_duration": 1000}
    if turn.usage is not None:
        done |= {"prompt_eval_count": turn.usage[0], "eval_count": turn.usage[1]}
    out.append(line({}, **done))
    return out


def _ollama_call(call: ToolCall) -> dict[str, Any]:
    arguments: object = call.arguments
    if isinstance(arguments, str):  # raw text: an object if it is one, else sent as is
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        arguments = parsed if isinstance(parsed, dict) else arguments
    entry: dict[str, Any] = {"function": {"name": call.name, "arguments": arguments}}
    if call.id:
        entry["id"] = call.id
    return entry


def ollama_error(status: int, message: str) -> dict[str, Any]:
    return {"error": message}


# ---- shared --------------------------------------------------------------------------


def default_message(status: int, model: str) -> str:
    if status == 404:
        return f"model '{model}' not found"
    if status == 401:
        return "invalid API key"
    try:
        return HTTPStatus(status).phrase.lower()
    except ValueError:
        return f"error {status}"
