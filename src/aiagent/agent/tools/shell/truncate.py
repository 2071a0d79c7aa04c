"""Head+tail truncation of tool output, in Codex CLI's format.

Matches ``codex-rs/utils/string/src/truncate.rs`` and
``codex-rs/utils/output-truncation/src/lib.rs``:

* Budgets are approximate tokens of 4 bytes (``max_tokens * 4`` bytes).
* Over budget, the first ``budget // 2`` and last ``budget - budget // 2`` bytes are kept,
  both cut back to whole UTF-8 characters, and the middle becomes ``…N tokens truncated…``.
* ``N`` is ``ceil((total bytes - budget) / 4)``: the bytes *over budget*, not the bytes
  actually cut. On multibyte text the characters split at the two edges are dropped as
  well, so counting the cut bytes came out one higher than Codex (``"😀" * 10`` in 3 tokens
  is ``😀…7 tokens truncated…😀``, not 8).
* The formatted variant (``exec_command``, ``shell``) starts with
  ``Warning: truncated output (original token count: T)``, then
  ``Total output lines: L`` and a blank line, where ``T`` is ``ceil(bytes / 4)`` and ``L``
  counts lines as Rust's ``str::lines`` does.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4


def approx_tokens(byte_count: int) -> int:
    return (max(0, byte_count) + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


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
    marker = f"…{approx_tokens(len(data) - budget)} tokens truncated…"
    if budget == 0:
        return marker
    left = budget // 2
    right = budget - left
    head = data[:left].decode("utf-8", "ignore")
    head_len = len(head.encode("utf-8", "surrogatepass"))
    tail_start = max(len(data) - right, head_len)
    while tail_start < len(data) and (data[tail_start] & 0xC0) == 0x80:
        tail_start += 1
    tail = data[tail_start:].decode("utf-8", "replace")
    return f"{head}{marker}{tail}"


def formatted_truncate(text: str, max_tokens: int) -> str:
    """:func:`truncate_middle` under Codex's warning and ``Total output lines`` header,
    when it cut anything (``formatted_truncate_text``)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= max(0, max_tokens) * BYTES_PER_TOKEN:
        return text
    return (
        f"Warning: truncated output (original token count: {approx_tokens(size)})\n"
        f"Total output lines: {line_count(text)}\n\n{truncate_middle(text, max_tokens)}"
    )
