"""The plan in the terminal UI: a compact block under the update_plan call (no result
summary), a long plan cut around the step in progress, line mode, and the last plan shown
again when a session is resumed (the real app in-process against FakeLLM)."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import pytest
from lineapp import run_app

from aiagent.contracts.events import (
    PlanStep,
    PlanUpdatedEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from aiagent.frontends.tui.app import InteractiveApp
from aiagent.frontends.tui.render import make_console
from aiagent.frontends.tui.terminal import TermInfo
from aiagent.frontends.tui.view import PlainView, TurnView
from aiagent.testing import FakeLLM, ToolCall, Turn

TERM = TermInfo(tty=False, color=False, dark=True, width=60)
ARGS = {"explanation": "parser first",
        "plan": [{"step": "Read the failing test", "status": "completed"},
                 {"step": "Fix the parser " + "and its edge cases " * 5, "status": "in_progress"},
                 {"step": "Run the suite \x1b]52;c;aGk=\x07", "status": "pending"}]}
STEPS = (PlanStep("Read the failing test", "completed"),
         PlanStep(ARGS["plan"][1]["step"].strip(), "in_progress"),
         PlanStep("Run the suite \x1b]52;c;aGk=\x07", "pending"))


def plan_events(steps: tuple[PlanStep, ...] = STEPS) -> list[object]:
    return [ToolCallEvent("p1", "update_plan", ARGS),
            PlanUpdatedEvent("p1", steps, "parser first"),
            ToolResultEvent("p1", "update_plan", "Plan updated", False)]


def rendered(events: list[object]) -> list[str]:
    console = make_console(TERM, file=io.StringIO(), width=60)
    view = TurnView(console, TERM)
    for event in events:
        view.handle(event)  # type: ignore[arg-type]
    asyncio.run(view.stop())
    return [line.rstrip() for line in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]


def test_the_plan_is_a_compact_block_under_its_call() -> None:
    lines = rendered(plan_events())
    text = "\n".join(lines)
    assert "● update_plan 3 steps" in text  # not the arguments' JSON
    assert "  Plan 1/3 done · parser first" in lines
    assert "    ✓ Read the failing test" in lines
    assert any(ln.startswith("    ▸ Fix the parser and its edge cases") and ln.endswith("…")
               for ln in lines)
    assert "    ○ Run the suite ^[]52;c;aGk=^G" in lines  # no raw escape reaches the terminal
    assert "\x1b" not in text and "\x07" not in text
    assert "Plan updated" not in text  # the block says it; no result summary
    assert all(len(ln) <= 60 for ln in lines), text
    # beside it: a refused plan shows its error as any tool does
    refused = rendered([ToolCallEvent("p2", "update_plan", {"plan": "x"}),
                        ToolResultEvent("p2", "update_plan", "update_plan: plan: must be a list", True)])
    assert any("update_plan: plan: must be a list" in ln for ln in refused)


def test_a_long_plan_shows_the_steps_around_the_current_one() -> None:
    steps = tuple(PlanStep(f"step {i}", "completed" if i < 40 else
                           "in_progress" if i == 40 else "pending") for i in range(100))
    lines = rendered(plan_events(steps))
    shown = [ln for ln in lines if ln.startswith("    ") and ln[4] in "✓▸○"]
    assert len(shown) == 8
    assert "    … 38 earlier steps" in lines and "    … 54 more steps" in lines
    assert "    ▸ step 40" in lines and "  Plan 40/100 done · parser first" in lines


def test_line_mode_prints_the_plan_as_text() -> None:
    out = io.StringIO()
    view = PlainView(out)
    for event in plan_events():
        view.handle(event)  # type: ignore[arg-type]
    asyncio.run(view.stop())
    text = out.getvalue()
    assert "→ update_plan 3 steps" in text and "Plan 1/3 done · parser first" in text
    assert "▸ Fix the parser" in text and "← update_plan" not in text
    assert "\x1b" not in text


def test_the_app_shows_plans_and_a_resumed_session_shows_the_last(
        ui_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    second = {"plan": [{"step": "Look", "status": "completed"},
                       {"step": "Write the answer", "status": "in_progress"}]}
    script = [Turn(text="Planning.", tool_calls=[ToolCall("update_plan", {"plan": [
                  {"step": "Look", "status": "in_progress"},
                  {"step": "Write the answer", "status": "pending"}]})]),
              Turn(text="Looked.", tool_calls=[ToolCall("update_plan", second)]),
              Turn(text="All planned."), Turn(text="back again")]
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    with FakeLLM(script) as fake:
        env["ANTHROPIC_BASE_URL"] = fake.url
        code, out = run_app(["make a plan", "/quit"], env, project, monkeypatch)
        assert code == 0, out
        assert "Plan 0/2 done" in out and "Plan 1/2 done" in out and "All planned." in out
        assert "Run this" not in out and "Allow" not in out  # never asked
        # --continue: the history, then the last plan
        monkeypatch.setattr(sys, "stdin", io.StringIO("what now?\n/quit\n"))
        resumed = io.StringIO()
        app = InteractiveApp({"continue_session": True}, project, env,
                             TermInfo(tty=False, color=False, dark=True, width=80), out=resumed)
        assert asyncio.run(app.main()) == 0
    again = resumed.getvalue()
    assert "resumed session" in again and "back again" in again
    history = again[again.index("resumed session"):again.index("back again")]
    last = history.rindex("Plan 1/2 done")
    assert "▸ Write the answer" in history[last:] and "✓ Look" in history[last:]
