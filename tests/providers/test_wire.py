"""wire.py on its own: SSE framing, argument parsing, retry-after, error messages."""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import AsyncIterator

import pytest

from aiagent.contracts.providers import AuthError, ProviderConfig, ProviderError, RetryableError
from aiagent.infra.providers.wire import (
    MalformedEvent,
    SseEvent,
    WireRequest,
    http_error,
    iter_ndjson,
    iter_sse,
    parse_tool_arguments,
    retry_after,
    server_message,
)


async def _lines(items: list[str]) -> AsyncIterator[str]:
    for item in items:
        yield item


def test_sse_framing() -> None:
    lines = [": comment", "", "event: a", "data: {\"x\":", "data: 1}", "id: 7", "", "data:no-space", "", "data: last"]

    async def go() -> list[SseEvent]:
        return [e async for e in iter_sse(_lines(lines))]

    assert asyncio.run(go()) == [
        SseEvent("a", '{"x":\n1}'),
        SseEvent("message", "no-space"),
        SseEvent("message", "last"),
    ]


def test_ndjson_skips_blank_lines_and_flags_garbage() -> None:
    async def go(lines: list[str]) -> list[dict[str, object]]:
        return [e async for e in iter_ndjson(_lines(lines))]

    assert asyncio.run(go(['{"a": 1}', "", "  ", '{"b": 2}'])) == [{"a": 1}, {"b": 2}]
    with pytest.raises(MalformedEvent):
        asyncio.run(go(['{"a": 1}', "{broken"]))
    with pytest.raises(MalformedEvent, match="not an object"):
        asyncio.run(go(["[1]"]))


@pytest.mark.parametrize(
    ("raw", "args", "has_error"),
    [
        ('{"a": 1}', {"a": 1}, False),
        ("", {}, False),
        (None, {}, False),
        ("{", {}, True),
        ("[1, 2]", {}, True),
        ('"text"', {}, True),
        ("null", {}, True),
    ],
)
def test_parse_tool_arguments(raw: str | None, args: dict[str, object], has_error: bool) -> None:
    parsed, error = parse_tool_arguments(raw)
    assert parsed == args
    assert (error is not None) is has_error


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after": "0.25"}) == 0.25
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= (retry_after({"retry-after": date}) or 0) <= 31


def test_server_message_shapes() -> None:
    assert server_message(b'{"type":"error","error":{"type":"x","message":"anthropic says"}}') == "anthropic says"
    assert server_message(b'{"error":{"message":"openai says","code":null}}') == "openai says"
    assert server_message(b'{"error":"ollama says"}') == "ollama says"
    assert server_message(b'{"detail":"vllm says"}') == "vllm says"
    assert server_message(b"<html>\n Bad   Gateway</html>") == "<html> Bad Gateway</html>"


def _req() -> WireRequest:
    return WireRequest("openai", "gpt-x", "http://h/v1/chat/completions", {}, {})


def test_http_error_kinds_and_key_scrubbing() -> None:
    config = ProviderConfig(base_url="http://h", api_key="sk-very-secret", api_key_env="OPENAI_API_KEY")
    auth = http_error(401, b'{"error": {"message": "bad key sk-very-secret"}}', {}, _req(), config)
    assert isinstance(auth, AuthError)
    assert "sk-very-secret" not in str(auth) and "OPENAI_API_KEY" in str(auth)
    busy = http_error(529, b"{}", {"retry-after": "2"}, _req(), config)
    assert isinstance(busy, RetryableError) and busy.retry_after == 2.0
    conflict = http_error(409, b"", {}, _req(), config)  # a retry would conflict again
    assert type(conflict) is ProviderError
