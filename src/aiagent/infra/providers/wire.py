"""What the three providers share on the wire.

* :func:`iter_sse` and :func:`iter_ndjson` turn the lines of a streaming response into
  events, tolerating comments, keep-alives and blank lines; a line that is not JSON is a
  :class:`MalformedEvent` (retryable: the stream is as good as cut).
* :class:`HttpStreamer` sends one request and retries only what a retry can mend: 408,
  429, 502, 503, 504, 529 and a plain 500 (honouring ``retry-after``), connection errors,
  "overloaded", a stream cut mid-way or without progress for ``idle_timeout`` seconds.
  Backoff is exponential with full jitter, and the number of retries is bounded by
  ``max_retries``. Every start-over is announced with :class:`Restart` (the consumer
  drops what it had of the response). A response is bounded (see ``body.py``): line and
  body size, output per response (``max_output_chars``), and an overall deadline for it,
  retries included (``turn_timeout``).
* :func:`http_error` turns a failed answer into a one-line :class:`ProviderError`; a
  request the server calls invalid (400/422, or a 500 that says it could not validate or
  parse the request) is an :class:`InvalidRequestError`, never retried.
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
    InvalidRequestError,
    ModelNotFoundError,
    ProviderConfig,
    ProviderError,
    Restart,
    RetryableError,
    Stop,
    StreamEvent,
    StreamLimitError,
    TextDelta,
    ToolUse,
    TurnTimeoutError,
)
from aiagent.infra.providers.body import (
    ACCEPT_ENCODING,
    BodyLimits,
    Stalled,
    Watchdog,
    bounded_lines,
    read_capped,
)
from aiagent.infra.providers.limits import fit_max_tokens, probe_window
from aiagent.infra.providers.vision import accepts_images

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
INVALID_STATUS = frozenset({400, 413, 422})
DRAIN_SECONDS = 1.0
E = TypeVar("E", bound=Exception)


@dataclass(frozen=True, slots=True)
class ToolProgress:
    """Internal to the wire: ``size`` more characters of tool-call arguments arrived.
    It keeps the idle timer from firing and counts toward ``max_output_chars``; it never
    leaves :class:`HttpStreamer`."""

    size: int


WireEvent = StreamEvent | ToolProgress
Decoder = Callable[[AsyncIterator[str]], AsyncGenerator[WireEvent, None]]


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
#: OpenRouter, vLLM, llama.cpp: "exceeds the available context size").
CONTEXT_OVERFLOW = re.compile(
    r"prompt is too long|context[_ ]length|maximum context|context window|too many tokens"
    r"|exceeds the (model's |available )?(context|maximum)|input is too long|request too large"
    r"|exceed_context_size",
    re.IGNORECASE,
)

#: How a 500 says the request itself was bad: llama.cpp's server answers 500 for JSON it
#: cannot use ("[json.exception.type_error.302] type must be string, but is null",
#: "Expected 'content' to be a string or an array", "Missing tool call type"), and
#: Python servers for failed validation. Such a request fails the same way every time.
INVALID_REQUEST_500 = re.compile(
    r"json\.exception|validation|validate|parse error|failed to parse|could not parse"
    r"|type must be|expected '?\w+'? to be|must be (a|an) |is required|missing (required|tool)"
    r"|unprocessable|invalid (request|argument|value|param|json|type|message|role|tool)",
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
    elif status in (400, 413, 500) and CONTEXT_OVERFLOW.search(said):
        message = f"{req.provider}: the request is too long for {req.model!r} ({status}): {said}"
        error = ContextOverflowError(message, status=status)
    elif status in INVALID_STATUS or (status == 500 and INVALID_REQUEST_500.search(said)):
        message = f"{req.provider}: the server rejected the request as invalid ({status}): {said}"
        error = InvalidRequestError(message, status=status)
    elif status in RETRYABLE_STATUS or (status >= 500 and "overloaded" in said.lower()):
        message = f"{req.provider}: server answered {status}: {said}"
        error = RetryableError(message, status=status, retry_after=retry_after(headers))
    else:
        error = ProviderError(f"{req.provider}: request failed ({status}): {said}", status=status)
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

    async def fetch_json(self, method: str, url: str, body: dict[str, Any] | None) -> object:
        """A small JSON answer within ``probe_timeout`` seconds, or None on any failure."""
        cfg = self.config
        limits = BodyLimits("probe", cfg.max_line_bytes, 1024 * 1024)
        headers = {"accept-encoding": ACCEPT_ENCODING, **cfg.extra_headers}
        if cfg.api_key:
            headers["authorization"] = f"Bearer {cfg.api_key}"
        try:
            async with asyncio.timeout(cfg.probe_timeout):
                async with self.client().stream(method, url, json=body, headers=headers) as resp:
                    if resp.status_code != 200:
                        return None
                    return json.loads(await read_capped(resp, limits, cap=1024 * 1024))
        except (TimeoutError, httpx.HTTPError, ProviderError, ValueError):
            return None

    async def stream(self, req: WireRequest, decode: Decoder) -> AsyncIterator[StreamEvent]:
        """The events of one response, started over on retryable failures, within the
        turn's deadline."""
        cfg = self.config
        turn_end = time.monotonic() + cfg.turn_timeout if cfg.turn_timeout > 0 else float("inf")
        failures = 0
        while True:
            try:
                async with aclosing(self._attempt(req, decode, turn_end)) as events:
                    async for event in events:
                        yield event
                return
            except RetryableError as exc:
                failures += 1
                delay = self._delay(_scrub(exc, cfg), failures)
                if time.monotonic() + delay >= turn_end:
                    raise _turn_timeout(req, cfg) from None
                # Always said, so a front-end can show the wait; a consumer that has
                # nothing of this response yet has nothing to drop.
                yield Restart(str(exc), failures, delay)
                await asyncio.sleep(delay)
            except ProviderError as exc:
                raise _scrub(exc, cfg) from None

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
        self, req: WireRequest, decode: Decoder, turn_end: float
    ) -> AsyncGenerator[StreamEvent, None]:
        cfg = self.config
        headers = {"accept-encoding": ACCEPT_ENCODING, **req.headers, **cfg.extra_headers}
        limits = BodyLimits(req.provider, cfg.max_line_bytes, cfg.max_body_bytes)
        watch = Watchdog(cfg.idle_timeout, turn_end)
        try:
            async with self.client().stream("POST", req.url, json=req.body, headers=headers) as resp:
                if resp.status_code >= 400:
                    body = await read_capped(resp, limits)
                    raise http_error(resp.status_code, body, resp.headers, req, cfg)
                async with aclosing(bounded_lines(resp, limits, watch)) as lines:
                    async with aclosing(decode(lines)) as events:
                        async for event in _metered(events, watch, req.provider, cfg.max_output_chars):
                            yield event
                            if isinstance(event, Stop):
                                break
                        else:
                            raise RetryableError(
                                f"{req.provider}: the stream ended before the response was complete"
                            )
                    await _drain(lines, cfg)
        except Stalled:
            if watch.turn_over():
                raise _turn_timeout(req, cfg) from None
            raise RetryableError(
                f"{req.provider}: no progress from the server for {cfg.idle_timeout:g} s "
                "(idle timeout; keep-alives do not count)"
            ) from None
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ProviderError(f"{req.provider}: bad base URL {req.url!r}: {exc}") from None
        except httpx.TimeoutException as exc:
            raise RetryableError(_timeout_message(exc, req, cfg)) from None
        except httpx.ConnectError as exc:
            if _refused(exc) and _is_loopback(req.url):
                raise ProviderError(_refused_message(req, cfg)) from None
            raise RetryableError(f"{req.provider}: connection to {req.url} failed: {_describe(exc)}") from None
        except httpx.TransportError as exc:
            raise RetryableError(f"{req.provider}: connection to {req.url} failed: {_describe(exc)}") from None


async def _metered(
    events: AsyncIterator[WireEvent], watch: Watchdog, provider: str, max_output: int
) -> AsyncIterator[StreamEvent]:
    """The decoder's events without :class:`ToolProgress`; text and tool-call bytes count
    as progress and toward ``max_output`` characters."""
    produced = 0
    async for event in events:
        if isinstance(event, TextDelta):
            size = len(event.text)
        elif isinstance(event, ToolProgress):
            size = event.size
        elif isinstance(event, ToolUse):
            size = len(event.block.raw_input or "") if event.block.raw_input else 1
        else:
            yield event
            continue
        produced += size
        if max_output and produced > max_output:
            raise StreamLimitError(
                f"{provider}: the response passed {max_output} characters of output "
                "([network] max_output_chars)"
            )
        if size:
            watch.progress()
        if not isinstance(event, ToolProgress):
            yield event


def _turn_timeout(req: WireRequest, cfg: ProviderConfig) -> TurnTimeoutError:
    return TurnTimeoutError(
        f"{req.provider}: no complete response within {cfg.turn_timeout:g} s ([network] turn_timeout)"
    )


def _refused(exc: BaseException) -> bool:
    """Whether a connection error comes from a refusal (nothing listens on that port)."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        found = stack.pop()
        if id(found) in seen:
            continue
        seen.add(id(found))
        if isinstance(found, ConnectionRefusedError):
            return True
        stack += [e for e in (found.__cause__, found.__context__) if e is not None]
        stack += list(getattr(found, "exceptions", ()))
    return False


def _refused_message(req: WireRequest, cfg: ProviderConfig) -> str:
    """A refused connection on this machine: retrying cannot help, say what to start."""
    base = cfg.base_url.rstrip("/")
    hint = ("is Ollama running? start it with `ollama serve`" if req.provider == "ollama"
            else f"is the server at {base} running?")
    return f"{req.provider}: connection to {base} refused (nothing listens there): {hint}"


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
    costs only that connection, never the response already given (the body bounds still
    hold while draining)."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(min(DRAIN_SECONDS, config.idle_timeout or DRAIN_SECONDS)):
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
    is one request plus a decoder. Subclasses say how to build the request and decode it.
    Every request is fitted to the model's context window (see ``limits.py``)."""

    name = ""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self._wire = HttpStreamer(config)
        self._window: int | None = config.context_window
        self._probed = config.context_window is not None or not config.probe_limits

    def wire_request(self, req: CompletionRequest) -> WireRequest:
        raise NotImplementedError

    def vision(self, model: str) -> bool:
        """Whether ``model`` is sent images (else a note for each)."""

        return accepts_images(model, self.config.vision)

    def decoder(self) -> Decoder:
        raise NotImplementedError

    def probe_base(self) -> str:
        """The base URL the limits probe starts from."""
        return self.config.base_url.rstrip("/")

    async def stream(self, req: CompletionRequest) -> AsyncIterator[StreamEvent]:
        req = fit_max_tokens(req, await self.context_window(req.model), self.config.min_output_tokens)
        async for event in self._wire.stream(self.wire_request(req), self.decoder()):
            yield event

    async def context_window(self, model: str) -> int | None:
        """The model's window: configured or known, else asked of the server once."""
        if not self._probed:
            self._probed = True
            self._window = await probe_window(self.name, self.probe_base(), model, self._wire.fetch_json)
        return self._window

    async def aclose(self) -> None:
        await self._wire.aclose()
