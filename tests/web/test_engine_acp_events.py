"""A hosted engine's ``session/update`` and ``session/request_permission`` JSON as the
page's events: well-formed messages map one to one, malformed ones are skipped."""

from __future__ import annotations

from typing import Any

from aiagent.contracts.events import (
    FileDiffEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
)
from aiagent.frontends.web.acp_events import UpdateMapper, permission_options, permission_outcome


def text(value: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": value}}


def progress(call: str, output: str, status: str = "in_progress", **extra: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": status,
            "content": [{"type": "content", "content": {"type": "text", "text": output}}], **extra}


def test_text_tool_call_output_result_and_diff() -> None:
    mapper = UpdateMapper()
    events = [e for u in [
        text("Hello "), text("there."),
        {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "echo hi", "kind": "execute",
         "status": "pending", "rawInput": {"command": "echo hi"}},
        progress("c1", "```\nhi\n```"),
        progress("c1", "```\nhi\nthere\n```"),
        progress("c1", "```\nhi\nthere\n```", "completed", rawOutput="hi\nthere"),
        {"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "completed",
         "title": "edit a.txt",
         "content": [{"type": "diff", "path": "a.txt", "oldText": "a\n", "newText": "b\n"}]},
    ] for e in mapper.events(u)]
    assert events[:2] == [TextDeltaEvent("Hello "), TextDeltaEvent("there.")]
    assert events[2] == ToolCallEvent("c1", "echo hi", {"command": "echo hi"})
    assert events[3:5] == [ToolOutputEvent("c1", "stdout", "hi"), ToolOutputEvent("c1", "stdout", "\nthere")]
    assert events[5] == ToolResultEvent("c1", "echo hi", "hi\nthere", is_error=False)
    assert isinstance(events[6], ToolCallEvent) and events[6].id == "c2"  # never announced: started
    diff = next(e for e in events if isinstance(e, FileDiffEvent))
    assert "-a" in diff.diff and "+b" in diff.diff and diff.path == "a.txt"
    assert mapper.text == "Hello there."


def test_malformed_updates_are_skipped_and_good_ones_still_map() -> None:
    mapper = UpdateMapper()
    junk: list[Any] = [None, 42, "text", [], {}, {"sessionUpdate": 7},
                       {"sessionUpdate": "agent_message_chunk", "content": "not a block"},
                       {"sessionUpdate": "agent_message_chunk", "content": {"type": "image", "data": "x"}},
                       {"sessionUpdate": "tool_call", "toolCallId": ["x"]},
                       {"sessionUpdate": "tool_call_update", "toolCallId": "z", "content": "nope"},
                       {"sessionUpdate": "plan", "entries": "??"}]
    for update in junk:
        for event in mapper.events(update):
            assert isinstance(event, ToolCallEvent)  # only the unannounced "z" starts a call
    assert mapper.events(text("ok")) == [TextDeltaEvent("ok")]


def test_permission_options_keep_our_answers_or_map_by_kind() -> None:
    ours = [{"optionId": a, "name": a, "kind": k} for a, k in
            [("once", "allow_once"), ("session", "allow_always"), ("always", "allow_always"),
             ("deny", "reject_once")]]
    assert permission_options(ours) == {"once": "once", "session": "session", "always": "always",
                                        "deny": "deny"}
    other = [{"optionId": "yes-1", "kind": "allow_once"}, {"optionId": "yes-all", "kind": "allow_always"},
             {"optionId": "no", "kind": "reject_once"}, "junk", {"kind": "allow_once"}]
    assert permission_options(other) == {"once": "yes-1", "always": "yes-all", "deny": "no"}
    assert permission_options("junk") == {"deny": ""}  # nothing to allow: a denial cancels
    assert permission_outcome("yes-1") == {"outcome": {"outcome": "selected", "optionId": "yes-1"}}
    assert permission_outcome("") == {"outcome": {"outcome": "cancelled"}}


def test_a_permission_requests_diff_is_shown_once() -> None:
    mapper = UpdateMapper()
    content = [{"type": "diff", "path": "a.txt", "oldText": "a\n", "newText": "b\n"}, "junk",
               {"type": "diff", "path": "big.txt", "oldText": "", "newText": "x" * (3 << 20)}]
    asked = mapper.diffs("c1", content)  # what the edit would do, before the approval card
    assert [(e.path, "+b" in e.diff) for e in asked if isinstance(e, FileDiffEvent)] == [("a.txt", True)]
    done = mapper.events({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed",
                          "content": content[:1]})
    assert not any(isinstance(e, FileDiffEvent) for e in done)  # the same diff is not repeated
    assert isinstance(done[-1], ToolResultEvent)
    assert mapper.diffs("c1", "not a list") == [] and mapper.diffs("c2", content[:1]) != []
