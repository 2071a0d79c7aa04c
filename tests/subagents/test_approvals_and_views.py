"""In process: a child's approval request reaches the parent's front-end labelled, a person's
answer reaches the child; cancelling the parent stops the child; each front-end labels
what a child does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.subagents.scripting import PARENT_PROMPT, conversation, task

from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.contracts.events import (
    ApprovalRequestEvent,
    DoneEvent,
    SubagentEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from aiagent.contracts.messages import Usage
from aiagent.infra.config.settings import Settings
from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    return folder


def settings_for(project: Path, tmp_path: Path, fake: FakeLLM) -> Settings:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
           "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456",
           "PATH": "/usr/bin:/bin"}
    return Settings.load(project, env=env)


async def drive(started: Any, answer: str, seen: list[Any], *, cancel_on: str = "") -> DoneEvent:
    agent = started.agent
    async for event in agent.run(PARENT_PROMPT):
        seen.append(event)
        if isinstance(event, ApprovalRequestEvent):
            event.answer(answer)  # type: ignore[arg-type]
        if cancel_on and isinstance(event, SubagentEvent) and \
                isinstance(event.event, ToolCallEvent) and event.event.name == cancel_on:
            agent.cancel()
        if isinstance(event, DoneEvent):
            return event
    raise AssertionError("no done event")


@pytest.mark.parametrize("given", ["once", "deny"])
def test_a_child_s_approval_reaches_the_parent_labelled(project: Path, tmp_path: Path,
                                                         given: str) -> None:
    target = project / "out.txt"
    write = ToolCall("write_file", {"file_path": str(target), "content": "from the child\n"})
    answer = conversation([Turn(tool_calls=[task("write it")]), Turn(text="parent done")],
                          {"write it": [Turn(tool_calls=[write]), Turn(text="child done")]})
    seen: list[Any] = []
    with FakeLLM(responder=answer) as fake:
        app = Application(settings_for(project, tmp_path, fake), interactive=True)
        started = app.start(SessionRequest(save=False))
        try:
            done = asyncio.run(drive(started, given, seen))
        finally:
            started.close()
    asks = [e for e in seen if isinstance(e, ApprovalRequestEvent)]
    assert len(asks) == 1 and asks[0].agent == "general#1"
    assert asks[0].what.startswith("[general#1] write_file") and asks[0].tool == "write_file"
    assert target.exists() == (given == "once")
    results = [e.event for e in seen if isinstance(e, SubagentEvent)
               and isinstance(e.event, ToolResultEvent)]
    assert results[0].is_error == (given == "deny")
    assert done.stop_reason == "completed" and done.answer == "parent done"


def test_cancelling_the_parent_cancels_the_child(project: Path, tmp_path: Path) -> None:
    slow = ToolCall("shell_command", {"command": "sleep 30"})
    answer = conversation([Turn(tool_calls=[task("wait")]), Turn(text="never")],
                          {"wait": [Turn(tool_calls=[slow]), Turn(text="never")]})
    seen: list[Any] = []
    with FakeLLM(responder=answer) as fake:
        app = Application(settings_for(project, tmp_path, fake), interactive=True)
        started = app.start(SessionRequest(save=False))
        try:
            done = asyncio.run(asyncio.wait_for(
                drive(started, "once", seen, cancel_on="shell_command"), 20))
        finally:
            started.close()
    assert done.stop_reason == "interrupted"
    child_done = [e.event for e in seen if isinstance(e, SubagentEvent)
                  and isinstance(e.event, DoneEvent)]
    assert [d.stop_reason for d in child_done] == ["interrupted"]
    assert done.usage.input_tokens >= 20  # the parent's request and the child's, both counted


# ---- what each front-end shows --------------------------------------------------------


def child_event(inner: Any, label: str = "general#1") -> SubagentEvent:
    return SubagentEvent("call-1", "general", label, inner, "fake-model")


def test_terminal_line_is_labelled_and_neutralised() -> None:
    from aiagent.frontends.terminal_text import subagent_line

    call = child_event(ToolCallEvent("c1", "read_file", {"file_path": "a\x1b[2Jb"}))
    line = subagent_line(call)
    assert line is not None and line.startswith("[general#1] → read_file")
    assert "\x1b" not in line
    nested = child_event(child_event(ToolResultEvent("c2", "glob", "x", True), "helper#1"))
    assert subagent_line(nested) == "[general#1 › helper#1] ✗ glob: x"
    done = child_event(DoneEvent("completed", "ok", 3, Usage(7, 2), 0))
    assert subagent_line(done) == "[general#1] done: completed, 3 turn(s), tokens in/out 7/2"


def test_web_wire_carries_the_label_and_the_event() -> None:
    from aiagent.frontends.web.wire import approval_data, to_wire

    kind, data = to_wire(child_event(ToolCallEvent("c1", "glob", {"pattern": "*.py"})))
    assert kind == "subagent" and data["label"] == "general#1" and data["id"] == "call-1"
    assert data["event"]["type"] == "tool-call" and data["line"].startswith("[general#1] → glob")
    ask = ApprovalRequestEvent("a1", "glob", "[general#1] glob", {}, agent="general#1")
    assert approval_data(ask, None)["agent"] == "general#1"


def test_acp_shows_a_child_s_call_as_its_own_titled_call(tmp_path: Path) -> None:
    from aiagent.agent.tools.base import ToolRegistry
    from aiagent.frontends.acp.updates import TurnView

    view = TurnView(tmp_path, ToolRegistry(), 1000)
    (start,) = view.updates(child_event(ToolCallEvent("c1", "glob", {"pattern": "*.py"})))
    assert start.tool_call_id == "general#1/c1" and start.title.startswith("[general#1] ")
    (end,) = view.updates(child_event(ToolResultEvent("c1", "glob", "a.py", False)))
    assert end.tool_call_id == "general#1/c1" and end.status == "completed"
    assert view.updates(child_event(DoneEvent("completed", "ok", 1, Usage(), 0))) == []


def test_tui_labels_a_child_s_steps_and_its_approval() -> None:
    import io

    from aiagent.frontends.tui.approval import body_lines
    from aiagent.frontends.tui.view import PlainView

    out = io.StringIO()
    view = PlainView(out)  # type: ignore[call-arg]
    view.handle(child_event(ToolCallEvent("c1", "glob", {"pattern": "*.py"})))
    assert "[general#1] → glob" in out.getvalue()
    ask = ApprovalRequestEvent("a1", "glob", "glob {}", {"pattern": "*"}, agent="general#1")
    assert body_lines(ask)[0].startswith("[general#1] ")
