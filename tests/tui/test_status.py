"""The status and hint lines fit any width by dropping whole parts."""

from __future__ import annotations

import pytest

from aiagent.contracts.messages import Usage
from aiagent.frontends.tui.status import Status, hint_line, status_line, tokens


def full() -> Status:
    return Status(model="claude-sonnet-4-5", provider="anthropic", mode="auto-edit",
                  context_tokens=25_000, context_budget=100_000,
                  total=Usage(120_000, 3_400, 50_000, 0), jobs=2)


def test_everything_shows_when_there_is_room() -> None:
    line = status_line(full(), 200)
    assert line == ("claude-sonnet-4-5 · anthropic · auto-edit · ctx 25% · 173.4k tok · "
                    "$0.43 · 2 jobs")


@pytest.mark.parametrize("width", [100, 80, 60, 40, 30, 20, 12])
def test_fits_and_keeps_the_most_important_parts(width: int) -> None:
    line = status_line(full(), width)
    assert len(line) <= width
    assert line.startswith("claude-sonnet-4-5"[: width - 1])
    if width >= 30:
        assert "auto-edit" in line
    for part in line.split(" · "):
        assert part in status_line(full(), 200).split(" · ") or part.endswith("…")


def test_no_cost_for_an_unknown_model_and_token_format() -> None:
    line = status_line(Status(model="mystery", total=Usage(10, 5)), 80)
    assert line == "mystery · 15 tok"
    assert tokens(999) == "999" and tokens(1000) == "1k" and tokens(2_500_000) == "2.5M"


@pytest.mark.parametrize("width", [120, 60, 30, 10])
def test_hint_line_fits(width: int) -> None:
    assert len(hint_line(width)) <= width
    assert len(hint_line(width, "Press Ctrl-C again to quit")) <= width
