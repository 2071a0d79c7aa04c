"""The context window without a model: budgets, views, trimming, spilling."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiagent.agent.core.compaction import OMITTED_HEADER, SUMMARY_HEADER, Plan, choose_cut, view
from aiagent.agent.core.context import ContextWindow
from aiagent.agent.core.redact import SecretMasker
from aiagent.agent.core.tokens import budget_for, context_window, message_tokens
from aiagent.contracts.events import CompactionEvent
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from aiagent.contracts.providers import CompletionRequest


def _turn(n: int, size: int = 2000) -> list[Message]:
    return [
        Message("assistant", [TextBlock(f"step {n}"), ToolUseBlock(f"t{n}", "read_file", {"n": n})]),
        Message("user", [ToolResultBlock(f"t{n}", f"result {n} " + "x" * size)]),
    ]


def _history(turns: int, size: int = 2000) -> list[Message]:
    out = [Message.user("the task")]
    for n in range(turns):
        out += _turn(n, size)
    return out


def test_budget_table_and_override() -> None:
    assert context_window("claude-sonnet-4-5") == 200000
    assert context_window("gpt-4o-mini") == 128000
    assert context_window("unknown-model") is None
    assert budget_for("claude-sonnet-4-5", 100000) == 100000
    assert budget_for("gemma2:2b", 100000) == 8192
    assert budget_for("my-model", 100000, {"my-model": 32000}) == 32000
    assert budget_for("unknown-model", 50000) == 50000


def test_view_keeps_protocol_and_latest_prompt() -> None:
    history = _history(6)
    cut = choose_cut(history, 0, 1500)
    assert cut is not None and history[cut].role == "assistant"
    sent = view(history, Plan(cut, "the summary"))
    assert sent[0].role == "user" and SUMMARY_HEADER in sent[0].content[0].text  # type: ignore[union-attr]
    assert sent[0].content[1] == TextBlock("the task")  # the latest prompt is kept
    ids = {b.id for m in sent for b in m.content if isinstance(b, ToolUseBlock)}
    results = {b.tool_use_id for m in sent for b in m.content if isinstance(b, ToolResultBlock)}
    assert ids == results  # no call without its result, nor the reverse
    dropped = view(history, Plan(cut, ""))
    assert OMITTED_HEADER in dropped[0].content[0].text  # type: ignore[union-attr]


def test_trimming_oldest_tool_outputs_first() -> None:
    history = _history(8)
    window = ContextWindow(5000)
    events: list[object] = []
    request = CompletionRequest("m", "system", history, max_tokens=500)
    sent = asyncio.run(window.prepare(request, provider=None, emit=events.append))  # type: ignore[arg-type]
    assert isinstance(events[0], CompactionEvent) and events[0].after_tokens < events[0].before_tokens
    trimmed = [b.tool_use_id for m in sent.messages for b in m.content
               if isinstance(b, ToolResultBlock) and "trimmed to save context" in b.content]
    assert trimmed and trimmed == [f"t{n}" for n in range(len(trimmed))]  # oldest first
    assert "x" * 100 in sent.messages[-1].content[0].content  # type: ignore[union-attr]
    assert len(history) == 17 and "x" * 100 in history[2].content[0].content  # type: ignore[union-attr]
    again = asyncio.run(window.prepare(request, provider=None, emit=events.append))  # type: ignore[arg-type]
    assert again.messages == sent.messages  # stable: the same bytes next time


def test_provider_usage_is_the_truth() -> None:
    history = _history(1, 100)
    window = ContextWindow(100000)
    request = CompletionRequest("m", "s", history, max_tokens=1000)
    asyncio.run(window.prepare(request, None, lambda e: None))  # type: ignore[arg-type]
    window.observe(Usage(input_tokens=700, output_tokens=40, cache_read_tokens=300))
    grown = [*history, Message("assistant", [TextBlock("ok")]), Message.user("y" * 400)]
    estimate = window.estimate(grown, CompletionRequest("m", "s", grown, max_tokens=1000))
    assert window.ratio == 3.0  # 1000 reported vs a much smaller estimate (clamped)
    assert estimate == 1040 + 1000 + round(message_tokens(grown[-1]) * 3.0)  # reported + new + reserve


def test_oversized_result_is_spilled(tmp_path: Path) -> None:
    window = ContextWindow(4000, folder=tmp_path / "sess")
    big = "HEAD" + "y" * 50000 + "TAIL"
    shown = window.fit_result("call/1", big)
    saved = tmp_path / "sess" / "tool-results" / "call_1.txt"
    assert saved.read_text() == big
    assert str(saved) in shown and shown.startswith("[This result is too large")
    assert "HEAD" in shown and shown.endswith("TAIL") and len(shown) < 5000
    assert window.fit_result("c2", "small") == "small"


def test_secret_values_are_masked_in_results() -> None:
    mask = SecretMasker.from_env({"OPENAI_API_KEY": "sk-abcdef1234567890", "HOME": "/root", "TOKEN": "short"})
    window = ContextWindow(100000, mask=mask)
    assert window.fit_result("c", "key=sk-abcdef1234567890 home=/root") == "key=**** home=/root"
