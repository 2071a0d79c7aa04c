"""The status line: model, provider, approval mode, context used, tokens, cost, jobs.

:func:`status_line` fits the line to a width by dropping the least important parts
first, so a narrow terminal never wraps or cuts a part in half.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiagent.core.messages import Usage
from aiagent.ui.tui.pricing import cost

SEP = " · "


@dataclass(slots=True)
class Status:
    model: str = ""
    provider: str = ""
    mode: str = ""
    context_tokens: int = 0  # what the last request sent (input + cache) plus its output
    context_budget: int = 0
    total: Usage | None = None  # the session's usage
    jobs: int = 0
    session_id: str = ""
    answered: bool = False  # the model has answered at least once this session


def tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M"


def context_percent(status: Status) -> int | None:
    if status.context_budget <= 0:
        return None
    return min(999, round(100 * status.context_tokens / status.context_budget))


def parts(status: Status) -> list[tuple[int, str]]:
    """(priority, text): lower priority numbers are dropped last."""
    out: list[tuple[int, str]] = [(0, status.model or "no model")]
    if status.provider:
        out.append((5, status.provider))
    if status.mode:
        out.append((1, status.mode))
    percent = context_percent(status)
    if percent is not None:
        out.append((2, f"ctx {percent}%"))
    total = status.total or Usage()
    used = total.input_tokens + total.output_tokens + total.cache_read_tokens \
        + total.cache_write_tokens
    if used:
        out.append((4, f"{tokens(used)} tok"))
        dollars = cost(status.model, total)
        if dollars is not None:
            out.append((3, f"${dollars:.2f}"))
    elif status.answered:  # the server reports no usage: unknown, not 0
        out.append((4, "tok unknown"))
    if status.jobs:
        out.append((1, f"{status.jobs} job{'s' if status.jobs != 1 else ''}"))
    return out


def status_line(status: Status, width: int) -> str:
    """The parts that fit in ``width`` columns, most important kept."""
    items = parts(status)
    while items:
        line = SEP.join(text for _, text in items)
        if len(line) <= width:
            return line
        drop = max(range(len(items)), key=lambda i: (items[i][0], i))
        if len(items) == 1:
            return line[: max(0, width - 1)] + "…"
        items.pop(drop)
    return ""


HINTS = (
    (0, "⏎ send"),
    (1, "/ commands"),
    (2, "@ files"),
    (3, "! shell"),
    (4, "⌥⏎ newline"),
    (5, "⇧⇥ mode"),
    (6, "^C^C quit"),
)


def hint_line(width: int, notice: str = "") -> str:
    if notice:
        return notice if len(notice) <= width else notice[: max(0, width - 1)] + "…"
    items = list(HINTS)
    while items:
        line = "  ".join(text for _, text in items)
        if len(line) <= width:
            return line
        items.pop()
    return ""
