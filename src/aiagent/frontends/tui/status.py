"""The status line: model, provider, approval mode, context used, tokens, cost, jobs.

:func:`status_line` fits the line to a width by dropping the least important parts
first, so a narrow terminal never wraps or cuts a part in half.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiagent.frontends.tui.firstframe import cell_len, cut_right, hint_line

__all__ = ["Status", "hint_line", "status_line"]

if TYPE_CHECKING:  # imported when used: the first frame draws a status line early
    from aiagent.contracts.messages import Usage

SEP = " · "


@dataclass(slots=True)
class Status:
    model: str = ""
    provider: str = ""
    mode: str = ""
    context_tokens: int = 0  # what the last request sent (input + cache) plus its output
    context_budget: int = 0
    total: Usage | None = None  # the session's usage
    elsewhere: tuple[tuple[str, Usage], ...] = ()  # (model, usage) of each task child, in total
    jobs: int = 0
    session_id: str = ""
    note: str = ""  # why there is no agent yet (e.g. "no API key"), kept beside the model
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
    if status.note:
        out.append((0, status.note))
    if status.provider:
        out.append((5, status.provider))
    if status.mode:
        out.append((1, status.mode))
    percent = context_percent(status)
    if percent is not None:
        out.append((2, f"ctx {percent}%"))
    total = status.total
    used = 0 if total is None else total.input_tokens + total.output_tokens \
        + total.cache_read_tokens + total.cache_write_tokens
    if total is not None and used:
        from aiagent.infra.config.pricing import run_cost

        out.append((4, f"{tokens(used)} tok"))
        if status.elsewhere:  # task children: how many, and their share of the tokens
            share = sum(u.input_tokens + u.output_tokens + u.cache_read_tokens
                        + u.cache_write_tokens for _, u in status.elsewhere)
            out.append((6, f"{len(status.elsewhere)} subagent(s) {tokens(share)} tok"))
        dollars = run_cost(status.model, total, status.elsewhere)
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
        if cell_len(line) <= width:
            return line
        drop = max(range(len(items)), key=lambda i: (items[i][0], i))
        if len(items) == 1:
            return cut_right(line, width)
        items.pop(drop)
    return ""
