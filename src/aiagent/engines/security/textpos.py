"""Byte offsets to line numbers and line text."""

from __future__ import annotations


def line_at(data: bytes, offset: int) -> tuple[int, bytes]:
    """1-based line number and the text of the line holding ``offset``."""
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    if end < 0:
        end = len(data)
    return data.count(b"\n", 0, offset) + 1, data[start:end]


def line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1
