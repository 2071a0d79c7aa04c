"""A hosted engine's ACP messages as our AgentEvents, so the page renders them unchanged.

The input is plain JSON (``session/update`` params, ``session/request_permission``
params) from another program: every field is checked for its type and anything
unexpected is skipped, never raised. Tool output arrives as the whole text so far (or in
pieces); the page gets only what is new.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from aiagent.agent.tools.plan import PlanError, check_steps
from aiagent.contracts.events import (
    AgentEvent,
    ApprovalAnswer,
    FileDiffEvent,
    PlanUpdatedEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
)

ANSWERS: tuple[ApprovalAnswer, ...] = ("once", "session", "project", "always", "deny")
KIND_ANSWER: dict[str, ApprovalAnswer] = {"allow_once": "once", "allow_always": "always",
                                          "reject_once": "deny", "reject_always": "deny"}
MAX_DIFF_TEXT = 2 * 1024 * 1024


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def block_text(block: Any) -> str:
    """The text of a content block (``{"type": "text", "text": …}``), else ""."""
    if isinstance(block, dict) and block.get("type") == "text":
        return _str(block.get("text"))
    return ""


def unfence(text: str) -> str:
    """``text`` without the Markdown fence an engine may wrap command output in."""
    lines = text.split("\n")
    if len(lines) >= 2 and lines[0].startswith("```") and lines[-1].startswith("```") \
            and set(lines[0]) == {"`"}:
        return "\n".join(lines[1:-1])
    return text


@dataclass
class UpdateMapper:
    """One prompt's ``session/update`` notifications → AgentEvents."""

    shown: dict[str, str] = field(default_factory=dict)  # call id -> output shown so far
    names: dict[str, str] = field(default_factory=dict)  # call id -> title
    answer: list[str] = field(default_factory=list)  # the assistant's text
    diffed: set[tuple[str, str, str]] = field(default_factory=set)  # diffs shown (no repeats)

    def events(self, update: Any) -> list[AgentEvent]:
        if not isinstance(update, dict):
            return []
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk":
            text = block_text(update.get("content"))
            self.answer.append(text)
            return [TextDeltaEvent(text)] if text else []
        if kind == "tool_call":
            return self._start(update)
        if kind == "tool_call_update":
            return self._progress(update)
        if kind == "plan":
            return plan_event(update.get("entries"))
        return []

    @property
    def text(self) -> str:
        return "".join(self.answer)

    def _start(self, update: dict[str, Any]) -> list[AgentEvent]:
        call_id = _str(update.get("toolCallId"))
        if not call_id:
            return []
        title = _str(update.get("title")) or _str(update.get("kind")) or "tool"
        self.names[call_id] = title
        raw = update.get("rawInput")
        args = raw if isinstance(raw, dict) else ({} if raw is None else {"input": raw})
        return [ToolCallEvent(call_id, title, args), *self._progress(update, started=True)]

    def _progress(self, update: dict[str, Any], *, started: bool = False) -> list[AgentEvent]:
        call_id = _str(update.get("toolCallId"))
        if not call_id:
            return []
        if call_id not in self.names:  # an update for a call never announced
            self.names[call_id] = _str(update.get("title")) or "tool"
            if not started:
                return [*self._start(update)]
        events: list[AgentEvent] = []
        content = update.get("content")
        texts, diffs = [], []
        for item in content if isinstance(content, list) else []:
            if isinstance(item, dict) and item.get("type") == "content":
                texts.append(unfence(block_text(item.get("content"))))
            elif isinstance(item, dict) and item.get("type") == "diff":
                diffs.append(item)
        status = update.get("status")
        if status in ("completed", "failed"):
            events += self.diffs(call_id, diffs)
            raw = update.get("rawOutput")
            result = raw if isinstance(raw, str) else "\n".join(t for t in texts if t)
            events.append(ToolResultEvent(call_id, self.names[call_id], result,
                                          is_error=status == "failed"))
        elif texts:
            events += self._output(call_id, "\n".join(texts))
        return events

    def diffs(self, call_id: str, content: Any) -> list[AgentEvent]:
        """The ``diff`` items of ``content`` (a permission request's or a result's) not
        shown yet for this call."""
        events: list[AgentEvent] = []
        for item in content if isinstance(content, list) else []:
            if not isinstance(item, dict) or item.get("type") != "diff":
                continue
            event = FileDiffEvent(call_id, _str(item.get("path")), diff_text(item))
            key = (call_id, event.path, event.diff)
            if event.diff and key not in self.diffed:
                self.diffed.add(key)
                events.append(event)
        return events

    def _output(self, call_id: str, text: str) -> list[AgentEvent]:
        before = self.shown.get(call_id, "")
        new = text[len(before):] if text.startswith(before) else text
        self.shown[call_id] = text if text.startswith(before) else before + text
        return [ToolOutputEvent(call_id, "stdout", new)] if new else []


def plan_event(entries: Any) -> list[AgentEvent]:
    """An engine's ``plan`` entries as our plan, checked as update_plan's arguments are
    (a plan that is too large or malformed is left out)."""

    if not isinstance(entries, list):
        return []
    items = [{"step": e.get("content"), "status": e.get("status")} if isinstance(e, dict) else e
             for e in entries]
    try:
        return [PlanUpdatedEvent("", check_steps(items))]
    except PlanError:
        return []


def diff_text(item: dict[str, Any]) -> str:
    """A unified diff from an ACP ``diff`` content item (old text absent: a new file)."""
    old, new, path = _str(item.get("oldText")), _str(item.get("newText")), _str(item.get("path"))
    if len(old) + len(new) > MAX_DIFF_TEXT:
        return ""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{path}", f"b/{path}"))


def permission_options(options: Any) -> dict[ApprovalAnswer, str]:
    """Our answers → the engine's option ids. An engine whose option ids are our answers
    (``aiagent acp``) keeps them all; others are mapped by the option's kind."""
    chosen: dict[ApprovalAnswer, str] = {}
    for option in options if isinstance(options, list) else []:
        if not isinstance(option, dict):
            continue
        option_id, kind = _str(option.get("optionId")), _str(option.get("kind"))
        if not option_id:
            continue
        answer = next((a for a in ANSWERS if a == option_id), None) or KIND_ANSWER.get(kind)
        if answer is not None and answer not in chosen:
            chosen[answer] = option_id
    chosen.setdefault("deny", "")  # no reject option: a denial cancels the request
    return {a: chosen[a] for a in ANSWERS if a in chosen}


def permission_outcome(option_id: str) -> dict[str, Any]:
    if not option_id:
        return {"outcome": {"outcome": "cancelled"}}
    return {"outcome": {"outcome": "selected", "optionId": option_id}}
