"""Reading a streamed response body within bounds.

httpx's own line reader keeps a line in memory however long it grows, and its gzip
decoder inflates a whole network chunk at once. Here the raw bytes are decompressed in
slices of at most :data:`SLICE` bytes, the decompressed total is capped
(``max_body_bytes``: a gzip bomb stops there), and so is one line (``max_line_bytes``: a
1 GB line without a newline stops at the cap). Every wait for bytes is bounded by a
:class:`Watchdog` deadline, which only *progress* (text or tool-call bytes) moves on:
keep-alive comments arrive as bytes but buy no time.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

import httpx

from aiagent.contracts.providers import ProviderError, StreamLimitError

SLICE = 64 * 1024
ERROR_BODY_LIMIT = 64 * 1024
ACCEPT_ENCODING = "gzip, deflate"
MiB = 1024 * 1024


class Stalled(Exception):
    """The watchdog's deadline passed while waiting for bytes."""


@dataclass(slots=True)
class Watchdog:
    """Two deadlines: ``idle`` seconds after the last progress, and the turn's end."""

    idle: float
    turn_end: float  # a time.monotonic() value
    last_progress: float = field(default_factory=time.monotonic)

    def progress(self) -> None:
        self.last_progress = time.monotonic()

    def deadline(self) -> float:
        idle_end = self.last_progress + self.idle if self.idle > 0 else float("inf")
        return min(idle_end, self.turn_end)

    def turn_over(self) -> bool:
        return time.monotonic() >= self.turn_end


@dataclass(frozen=True, slots=True)
class BodyLimits:
    provider: str
    max_line_bytes: int
    max_body_bytes: int


class _Inflater:
    """Decompresses ``gzip``/``deflate`` in slices; passes anything else through."""

    def __init__(self, encoding: str, provider: str) -> None:
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self._z = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise ProviderError(f"{provider}: unsupported content-encoding {encoding!r}")
        self.provider = provider

    def feed(self, data: bytes) -> list[bytes]:
        """At most one slice per call to ``decompress``; the caller counts them."""
        if self._z is None:
            return [data]
        out: list[bytes] = []
        try:
            piece = self._z.decompress(data, SLICE)
            while True:
                if piece:
                    out.append(piece)
                if not self._z.unconsumed_tail:
                    break
                piece = self._z.decompress(self._z.unconsumed_tail, SLICE)
        except zlib.error as exc:
            raise ProviderError(f"{self.provider}: the response body is not valid compressed data ({exc})") from None
        return out


async def _raw_chunks(resp: httpx.Response, watch: Watchdog | None) -> AsyncIterator[bytes]:
    chunks = resp.aiter_raw()
    while True:
        try:
            if watch is None:
                chunk = await chunks.__anext__()
            else:
                remaining = watch.deadline() - time.monotonic()
                if remaining <= 0:
                    raise Stalled
                async with asyncio.timeout(remaining):
                    chunk = await chunks.__anext__()
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise Stalled from None
        yield chunk


async def decoded_chunks(
    resp: httpx.Response, limits: BodyLimits, watch: Watchdog | None = None
) -> AsyncIterator[bytes]:
    """The body, decompressed, in slices; past ``max_body_bytes`` a :class:`StreamLimitError`."""
    inflater = _Inflater(resp.headers.get("content-encoding", ""), limits.provider)
    total = 0
    async for raw in _raw_chunks(resp, watch):
        for piece in inflater.feed(raw):
            if watch is not None and time.monotonic() >= watch.deadline():
                raise Stalled  # one small compressed chunk can inflate to a lot of work
            total += len(piece)
            if limits.max_body_bytes and total > limits.max_body_bytes:
                raise StreamLimitError(
                    f"{limits.provider}: the response body passed {_size(limits.max_body_bytes)} "
                    "after decompression ([network] max_body_bytes)"
                )
            yield piece


async def bounded_lines(
    resp: httpx.Response, limits: BodyLimits, watch: Watchdog | None = None
) -> AsyncGenerator[str, None]:
    """Lines of the body (``\\n`` or ``\\r\\n`` ended), none longer than ``max_line_bytes``.

    A run of blank lines comes out as one: the same to SSE (a blank line ends an event)
    and NDJSON (blank lines are skipped), and a body of millions of newlines costs no
    more than its bytes."""
    pending: list[bytes] = []  # the unfinished line, in pieces (no quadratic joins)
    size = 0
    blank = False
    async for piece in decoded_chunks(resp, limits, watch):
        if b"\n" not in piece:
            pending.append(piece)
            size += len(piece)
            _check_line(size, limits)
            continue
        if not piece.strip(b"\r\n") and piece.count(b"\n") > 1:
            # newlines only (a padding flood): the line that ends, one blank, at C speed
            parts = [b"".join(pending), b"", b""]
        else:
            parts = piece.split(b"\n")
            parts[0] = b"".join([*pending, parts[0]])
        tail = parts.pop()
        pending, size = [tail], len(tail)
        for raw in parts:
            _check_line(len(raw), limits)
            empty = not raw or raw == b"\r"
            if not (empty and blank):
                yield _text(raw)
            blank = empty
        _check_line(size, limits)
    rest = b"".join(pending)
    if rest:
        yield _text(rest)


def _check_line(size: int, limits: BodyLimits) -> None:
    if limits.max_line_bytes and size > limits.max_line_bytes:
        raise StreamLimitError(
            f"{limits.provider}: a stream line passed {_size(limits.max_line_bytes)} "
            "without ending ([network] max_line_bytes)"
        )


async def read_capped(resp: httpx.Response, limits: BodyLimits, cap: int = ERROR_BODY_LIMIT) -> bytes:
    """Up to ``cap`` bytes of a (small) body such as an error answer; the rest is dropped."""
    out = bytearray()
    async for piece in decoded_chunks(resp, limits):
        out += piece[: cap - len(out)]
        if len(out) >= cap:
            break
    return bytes(out)


def _text(line: bytes | bytearray) -> str:
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("utf-8", "replace")


def _size(n: int) -> str:
    return f"{n / MiB:g} MiB" if n >= MiB else f"{n} bytes"
