"""One turn's events, numbered, kept so a page that lost its connection resumes where it
stopped (``Last-Event-ID``) and a second page on the same session sees the same stream.

The log is bounded (``limit`` events); a reader asking for events that were already
dropped gets a ``gap`` event first, so a loss is never silent.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

DEFAULT_LIMIT = 20_000


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    type: str
    data: str  # JSON text

    def sse(self, turn: str) -> bytes:
        return f"id: {turn}-{self.seq}\nevent: {self.type}\ndata: {self.data}\n\n".encode()


class TurnLog:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.id = secrets.token_hex(6)
        self.limit = limit
        self.entries: list[Entry] = []
        self.next_seq = 1
        self.finished = False
        self._changed = asyncio.Event()
        self.delivered = asyncio.Event()  # a reader got the first events out

    def add(self, type_: str, data: dict[str, Any]) -> None:
        self.entries.append(Entry(self.next_seq, type_, json.dumps(data)))
        if len(self.entries) > self.limit + self.limit // 4:  # trim in steps, not per event
            del self.entries[: len(self.entries) - self.limit]
        self.next_seq += 1
        self._wake()

    def finish(self) -> None:
        self.finished = True
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def follow(self, after: int = 0, keepalive: float = 15.0) -> AsyncIterator[bytes]:
        """SSE bytes for every event numbered above ``after``, live until the turn ends
        (a comment line every ``keepalive`` seconds of silence)."""
        while True:
            changed = self._changed
            entries = self.entries
            if entries and after + 1 < entries[0].seq:
                yield _gap(after + 1, entries[0].seq - 1)
                after = entries[0].seq - 1
            start = max(0, after + 1 - entries[0].seq) if entries else 0
            for entry in entries[start:]:
                yield entry.sse(self.id)
                after = entry.seq
                self.delivered.set()
            if self.finished:
                return
            try:
                await asyncio.wait_for(changed.wait(), keepalive)
            except TimeoutError:
                yield b": keepalive\n\n"


def _gap(first: int, last: int) -> bytes:
    return f"event: gap\ndata: {json.dumps({'missed_from': first, 'missed_to': last})}\n\n".encode()


def parse_event_id(value: str | None) -> tuple[str, int] | None:
    """``turn-seq`` → (turn, seq); None when absent or not of that shape."""
    if not value:
        return None
    turn, _, seq = value.strip().rpartition("-")
    if not turn or not seq.isdigit():
        return None
    return turn, int(seq)
