"""Head+tail truncation of tool output, in Codex CLI's format.

Budgets are approximate tokens of 4 bytes. Over budget, the middle is replaced by
``…N tokens truncated…`` (N = removed bytes / 4, rounded up) and, for the formatted
variant, the text is preceded by ``Total output lines: L`` and a blank line.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4


def approx_tokens(byte_count: int) -> int:
    return (byte_count + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


def approx_token_count(text: str) -> int:
    return approx_tokens(len(text.encode("utf-8", "surrogatepass")))


def line_count(text: str) -> int:
    """Lines as Rust's ``str::lines`` counts them (a final newline ends, not starts, one)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def truncate_middle(text: str, max_tokens: int) -> str:
    """Keep the start and end of ``text`` within ``max_tokens``; mark what was cut."""
    data = text.encode("utf-8", "surrogatepass")
    budget = max(0, max_tokens) * BYTES_PER_TOKEN
    if not data or (budget and len(data) <= budget):
        return text
    if budget == 0:
        return f"…{approx_tokens(len(data))} tokens truncated…"
    left = budget // 2
    right = budget - left
    head = data[:left].decode("utf-8", "ignore")
    head_len = len(head.encode("utf-8", "surrogatepass"))
    tail_start = max(len(data) - right, head_len)
    while tail_start < len(data) and (data[tail_start] & 0xC0) == 0x80:
        tail_start += 1
    tail = data[tail_start:].decode("utf-8", "replace")
    removed = len(data) - head_len - (len(data) - tail_start)
    return f"{head}…{approx_tokens(removed)} tokens truncated…{tail}"


def formatted_truncate(text: str, max_tokens: int) -> str:
    """:func:`truncate_middle` plus the ``Total output lines`` header when it cut anything."""
    if len(text.encode("utf-8", "surrogatepass")) <= max_tokens * BYTES_PER_TOKEN:
        return text
    return f"Total output lines: {line_count(text)}\n\n{truncate_middle(text, max_tokens)}"
