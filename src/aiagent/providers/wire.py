"""What the three providers share on the wire.

* :func:`iter_sse` and :func:`iter_ndjson` turn the lines of a streaming response into
  events, tolerating comments, keep-alives and blank lines; a line that is not JSON is a
  :class:`MalformedEvent` (retryable: the stream is as good as cut).
* :class:`HttpStreamer` sends one request and retries what is worth retrying: 408, 409,
  429 and 5xx answers (honouring ``retry-after``), connection errors, a stream cut
  mid-way or stalled for ``idle_timeout`` seconds. Backoff is exponential with full
  jitter, and the number of retries is bounded by ``max_retries``. Every start-over is
  announced with :class:`Restart` (the consumer drops what it had of the response).
* :func:`http_error` turns a failed answer into a one-line :class:`ProviderError`.
* :func:`parse_tool_arguments` reads a model's tool arguments without ever raising.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import random
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from aiagent.contracts.providers import (
    AuthError,
    CompletionRequest,
    ContextOverflowError,
    ModelNotFoundError,
    ProviderConfig,
    ProviderError,
    Restart,
    RetryableError,
    Stop,
    StreamEvent,
)

RETRYABLE_STATUS = frozenset({408, 409, 429})
DRAIN_SECONDS = 1.0
E = TypeVar("E", bound=Exception)

Decoder = Callable[[AsyncIterator[str]], AsyncGenerator[StreamEvent, None]]


class MalformedEvent(RetryableError):
    """A stream event that could not be read; the response is started over."""


# ---- parsing -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str
    data: str


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    """Server-sent events from response lines. Comments (``:``) and ids are skipped."""
    event, data = "", list[str]()
    async for line in lines:
        if not line:
            if data:
                yield SseEvent(event or "message", "\n".join(data))
            event, data = "", list[str]()
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
    if data:  # a last event without its blank line
        yield SseEvent(event or "message", "\n".join(data))


async def iter_ndjson(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """One JSON object per non-blank line."""
    async for line in lines:
        if line.strip():
            yield load_event(line)


def load_event(data: str) -> dict[str, Any]:
    """Parse one event's JSON payload; it must be an object."""
    try:
        value = json.loads(data)
    except ValueError:
        raise MalformedEvent(f"malformed stream event: {_clip(data, 80)!r}") from None
    if not isinstance(value, dict):
        raise MalformedEvent(f"malformed stream event (not an object): {_clip(data, 80)!r}")
    return value


def parse_tool_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """``(arguments, error)``: an empty text is no arguments; anything but a JSON object
    gives ``({}, message)`` so the model can be told and try again."""
    if raw is None or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return {}, f"tool arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return {}, f"tool arguments must be a JSON object, not {type(value).__name__}"
    return value, None


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty dict (for missing fields)."""
    return value if isinstance(value, dict) else {}


def as_int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _clip(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


# ---- errors --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WireRequest:
    """One streaming POST, with what error messages need to name."""

    provider: str
    model: str
    url: str
    headers: dict[str, str]
    body: dict[str, Any]


def server_message(body: bytes) -> str:
    """The error message a server put in its answer (Anthropic, OpenAI, Ollama shapes)."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return _clip(text, 200)
    candidates: list[object] = []
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            candidates += [error.get("message"), error.get("type")]
        candidates += [error, data.get("message"), data.get("detail")]
    for found in candidates:
        if isinstance(found, str) and found.strip():
            return _clip(found, 200)
    return _clip(text, 200)


#: How servers say a request does not fit the model's window (Anthropic, OpenAI,
#: OpenRouter, vLLM, llama.cpp).
CONTEXT_OVERFLOW = re.compile(
    r"prompt is too long|context[_ ]length|maximum context|context window|too many tokens"
    r"|exceeds the (model's )?(context|maximum)|input is too long|request too large",
    re.IGNORECASE,
)


def http_error(
    status: int, body: bytes, headers: Mapping[str, str], req: WireRequest, config: ProviderConfig
) -> ProviderError:
    """The error for a failed answer, one line, never showing the key."""
    said = server_message(body) or "no details"
    if status in (401, 403):
        message = _auth_message(status, req.provider, config, said)
        error: ProviderError = AuthError(message, status=status)
    elif status == 404:
        hint = "" if "/v1" in req.url or req.provider != "openai" else " (does the base URL need /v1?)"
        message = f"{req.provider}: model {req.model!r} not found at {req.url} (404{hint}): {said}"
        error = ModelNotFoundError(message, status=status)
    elif status in RETRYABLE_STATUS or status >= 500:
        message = f"{req.provider}: server answered {status}: {said}"
        error = RetryableError(message, status=status, retry_after=retry_after(headers))
    elif status in (400, 413) and CONTEXT_OVERFLOW.search(said):
        message = f"{req.provider}: the request is too long for {req.model!r} ({status}): {said}"
        error = ContextOverflowError(message, status=status)
    else:
        error = ProviderError(f"{req.provider}: request rejected ({status}): {said}", status=status)
    return _scrub(error, config)


def _auth_message(status: int, provider: str, config: ProviderConfig, said: str) -> str:
    where = config.api_key_env or "the API key setting"
    if not config.api_key:
        return f"{provider}: no API key: set {where} (server answered {status}: {said})"
    if status == 403:
        return f"{provider}: the key in {where} is not allowed to do this ({status}: {said})"
    return f"{provider}: the key in {where} was rejected ({status}: {said})"


def _scrub(error: E, config: ProviderConfig) -> E:
    key = config.api_key
    if key and len(key) >= 4 and key in str(error):
        error.args = (str(error).replace(key, "***"),)
    return error


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# ---- transport with retries ----------------------------------------------------------


class HttpStreamer:
    """Sends streaming requests for one provider, retrying within bounds.

    The httpx client is made on first use and kept for the event loop it was made in,
    so connections are reused across turns. Call :meth:`aclose` when done.
    """

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop or self._client.is_closed:
            cfg = self.config
            timeout = httpx.Timeout(cfg.idle_timeout, connect=cfg.connect_timeout)
            # Proxy variables (HTTPS_PROXY, NO_PROXY...) are honoured, except for a
            # server on this machine, which a proxy could not reach anyway.
            local = _is_loopback(cfg.base_url)
            self._client = httpx.AsyncClient(timeout=timeout, trust_env=not local)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def stream(self, req: WireRequest, decode: Decoder) -> AsyncIterator[StreamEvent]:
        """The events of one response, started over on retryable failures."""
        failures = 0
        while True:
            try:
                async with aclosing(self._attempt(req, decode)) as events:
                    async for event in events:
                        yield event
                return
            except RetryableError as exc:
                failures += 1
                delay = self._delay(_scrub(exc, self.config), failures)
                # Always said, so a front-end can show the wait; a consumer that has
                # nothing of this response yet has nothing to drop.
                yield Restart(str(exc), failures, delay)
                await asyncio.sleep(delay)
            except ProviderError as exc:
                raise _scrub(exc, self.config) from None

    def _delay(self, exc: RetryableError, failures: int) -> float:
        cfg = self.config
        if failures > cfg.max_retries:
            tries = f"{failures} attempt" + ("s" if failures > 1 else "")
            raise ProviderError(f"{exc} (gave up after {tries})", status=exc.status) from None
        if exc.retry_after is not None:
            if exc.retry_after > cfg.max_retry_wait:
                raise ProviderError(
                    f"{exc}; the server asks to wait {exc.retry_after:.0f} s before retrying, "
                    f"more than max_retry_wait ({cfg.max_retry_wait:.0f} s)",
                    status=exc.status,
                ) from None
            return exc.retry_after
        ceiling = min(cfg.backoff_max, cfg.backoff_base * 2 ** (failures - 1))
        return random.uniform(0, ceiling)

    async def _attempt(
        self, req: WireRequest, decode: Decoder
    ) -> AsyncGenerator[StreamEvent, None]:
        headers = {**req.headers, **self.config.extra_headers}
        try:
            async with self.client().stream("POST", req.url, json=req.body, headers=headers) as resp:
                if resp.status_code >= 400:
                    body = await resp.aread()
                    raise http_error(resp.status_code, body, resp.headers, req, self.config)
                lines = resp.aiter_lines()
                async with aclosing(decode(lines)) as events:
                    async for event in events:
                        yield event
                        if isinstance(event, Stop):
                            break
                    else:
                        raise RetryableError(f"{req.provider}: the stream ended before the response was complete")
                await _drain(lines, self.config)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ProviderError(f"{req.provider}: bad base URL {req.url!r}: {exc}") from None
        except httpx.TimeoutException as exc:
            raise RetryableError(_timeout_message(exc, req, self.config)) from None
        except httpx.TransportError as exc:
            raise RetryableError(f"{req.provider}: connection to {req.url} failed: {_describe(exc)}") from None


def _is_loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(url if "://" in url else "http://" + url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _drain(lines: AsyncIterator[str], config: ProviderConfig) -> None:
    """Read what follows the last event so the connection can be reused; a failure here
    costs only that connection, never the response already given."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(min(DRAIN_SECONDS, config.idle_timeout)):
            async for _ in lines:
                pass


def _timeout_message(exc: httpx.TimeoutException, req: WireRequest, cfg: ProviderConfig) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return f"{req.provider}: could not connect to {req.url} within {cfg.connect_timeout:g} s"
    if isinstance(exc, httpx.ReadTimeout):
        return f"{req.provider}: no data from the server for {cfg.idle_timeout:g} s (idle timeout)"
    return f"{req.provider}: request to {req.url} timed out: {_describe(exc)}"


def _describe(exc: Exception) -> str:
    text = _clip(str(exc), 160)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def join_url(base: str, path: str) -> str:
    """``base`` without its trailing slash, then ``path`` (which starts with ``/``)."""
    return base.rstrip("/") + path


class WireProvider:
    """What the three providers share: a name, one :class:`HttpStreamer`, and a stream that
    is one request plus a decoder. Subclasses say how to build the request and decode it."""

    name = ""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self._wire = HttpStreamer(config)

    def wire_request(self, req: CompletionRequest) -> WireRequest:
        raise NotImplementedError

    def decoder(self) -> Decoder:
        raise NotImplementedError

    async def stream(self, req: CompletionRequest) -> AsyncIterator[StreamEvent]:
        async for event in self._wire.stream(self.wire_request(req), self.decoder()):
            yield event

    async def aclose(self) -> None:
        await self._wire.aclose()
