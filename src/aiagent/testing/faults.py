"""Hostile and broken streams for :class:`~aiagent.testing.FakeLLM` (``Turn.fault``).

Each is generated while it is sent, so the server's own memory stays small whatever the
size, and each stops by itself after ``Turn.fault_bytes`` bytes or ``Turn.fault_seconds``
seconds, or as soon as the client goes away or the server stops.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from aiagent.testing.formats import Format, stream_head, text_event
from aiagent.testing.script import Turn

PIECE = 1 << 20  # bytes generated and written at a time
TOKENS_PER_WRITE = 64  # text events written together in an endless stream

Writer = Callable[[bytes], None]
Stopping = Callable[[float], bool]


def fault_body(fmt: Format, turn: Turn, request: dict[str, Any], serial: int) -> Iterator[bytes]:
    """The body of a faulty answer, piece by piece (already gzip-compressed for a bomb)."""
    if turn.fault == "giant_line":
        return _giant_line(fmt, turn, request, serial)
    if turn.fault == "gzip_bomb":
        return _gzip_bomb(turn)
    if turn.fault == "keepalive_forever":
        return _keepalives(fmt, turn)
    if turn.fault == "endless_tokens":
        return _endless_tokens(fmt, turn, request, serial)
    raise ValueError(f"unknown fault {turn.fault!r}")


def _giant_line(fmt: Format, turn: Turn, request: dict[str, Any], serial: int) -> Iterator[bytes]:
    yield fmt.preamble + b"".join(stream_head(fmt, request, serial)) + fmt.open_text
    block = b"a" * PIECE
    sent = 0
    while sent < turn.fault_bytes:
        piece = block[: turn.fault_bytes - sent]
        sent += len(piece)
        yield piece


def _gzip_bomb(turn: Turn) -> Iterator[bytes]:
    """Blank lines (valid in SSE and NDJSON, no progress) that inflate ~1000:1."""
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\n" * PIECE
    made = 0
    while made < turn.fault_bytes:
        piece = block[: turn.fault_bytes - made]
        made += len(piece)
        out = z.compress(piece)
        if out:
            yield out
    yield z.flush()


def _keepalives(fmt: Format, turn: Turn) -> Iterator[bytes]:
    yield fmt.preamble
    end = time.monotonic() + turn.fault_seconds
    while time.monotonic() < end:
        yield fmt.keepalive
        time.sleep(0.05)


def _endless_tokens(fmt: Format, turn: Turn, request: dict[str, Any], serial: int) -> Iterator[bytes]:
    yield fmt.preamble + b"".join(stream_head(fmt, request, serial))
    batch = b"".join(text_event(fmt, f"tok{i % 10} ", serial) for i in range(TOKENS_PER_WRITE))
    end = time.monotonic() + turn.fault_seconds
    sent = 0
    while sent < turn.fault_bytes and time.monotonic() < end:
        sent += len(batch)
        yield batch
