"""AgentEvents → ``session/update`` payloads (the ``acp`` package's schema types).

One :class:`TurnView` per prompt keeps what the updates need across events: each tool
call's kind, title and paths, the text of the files an edit is about to change (so its
result carries a real diff, old and new text), and the output a command printed so far.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import schema

from aiagent.contracts.events import (
    AgentEvent,
    ApprovalRequestEvent,
    PlanUpdatedEvent,
    SubagentEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
    TurnEndEvent,
    UsageEvent,
)
from aiagent.contracts.tools import ToolEffect, effect_of

if TYPE_CHECKING:
    from aiagent.contracts.messages import Usage

Update = Any  # one of the schema's session-update models
OUTPUT_SHOWN = 32 * 1024  # the tail of a command's output shown while it runs
SNAPSHOT_LIMIT = 2 * 1024 * 1024  # larger files get no diff


def text_chunk(text: str, *, user: bool = False) -> Update:
    block = schema.TextContentBlock(type="text", text=text)
    if user:
        return schema.UserMessageChunk(session_update="user_message_chunk", content=block)
    return schema.AgentMessageChunk(session_update="agent_message_chunk", content=block)


def plan_update(event: PlanUpdatedEvent) -> Update:
    """The whole plan as an ACP ``plan`` update (it replaces the client's last one). Our
    steps have no priority: every entry is ``medium``."""
    return schema.AgentPlanUpdate(session_update="plan", entries=[
        schema.PlanEntry(content=step.step, priority="medium", status=step.status)
        for step in event.steps])


def tool_kind(effect: ToolEffect) -> str:
    """The ACP kind of a call, from what the tool declares it does (never its name)."""
    if effect.executes:
        return "execute"
    if effect.writes:
        return "edit"
    if "network" in effect.kinds:
        return "fetch"
    return "read" if effect.read_only else "other"


def title_of(name: str, args: dict[str, Any], effect: ToolEffect) -> str:
    command = effect.command(args) if effect.executes else None
    if command is not None:
        return command if len(command) <= 200 else command[:199] + "…"
    paths = effect.paths(args)
    if paths:
        return f"{name} {', '.join(paths)}"
    brief = json.dumps(args, ensure_ascii=False)
    return f"{name} {brief if len(brief) <= 120 else brief[:119] + '…'}"


def text_content(text: str) -> Any:
    return schema.ContentToolCallContent(
        type="content", content=schema.TextContentBlock(type="text", text=text))


def fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"


def read_snapshot(path: Path) -> str | None:
    """The text of ``path`` now (None: missing, too large or not text)."""
    try:
        if path.stat().st_size > SNAPSHOT_LIMIT:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


@dataclass
class CallView:
    name: str
    kind: str
    title: str
    paths: list[Path]
    before: dict[Path, str | None] = field(default_factory=dict)
    output: str = ""


class TurnView:
    """Renders one prompt's events; ``tools`` looks a tool up by name (the agent's registry)."""

    def __init__(self, workspace: Path, tools: Any, window: int) -> None:
        self.workspace, self.tools, self.window = workspace, tools, window
        self.calls: dict[str, CallView] = {}
        self.current = ""  # the call being run (an approval request is about this one)
        self.last_stop = "end_turn"

    def updates(self, event: AgentEvent) -> list[Update]:
        if isinstance(event, TextDeltaEvent):
            return [text_chunk(event.text)] if event.text else []
        if isinstance(event, ToolCallEvent):
            return [self._start(event)]
        if isinstance(event, ToolOutputEvent):
            return self._output(event)
        if isinstance(event, ToolResultEvent):
            return [self._result(event)]
        if isinstance(event, PlanUpdatedEvent):
            return [plan_update(event)]
        if isinstance(event, UsageEvent):
            return [self._usage(event.usage)]
        if isinstance(event, TurnEndEvent):
            self.last_stop = event.stop_reason
        if isinstance(event, SubagentEvent):
            return self._child(event)
        return []

    def _child(self, event: SubagentEvent) -> list[Update]:
        """A ``task`` child's tool calls as calls of their own, titled with the child's
        label (its text and usage stay inside the child: the ``task`` result has its answer)."""
        inner = event.event
        if isinstance(inner, SubagentEvent):  # a child's child
            inner = replace(inner, label=f"{event.label} › {inner.label}")
            return self._child(inner)
        if not isinstance(inner, ToolCallEvent | ToolOutputEvent | ToolResultEvent):
            return []
        updates = self.updates(replace(inner, id=f"{event.label}/{inner.id}"))
        for update in updates:
            if isinstance(update, schema.ToolCallStart):
                update.title = f"[{event.label}] {update.title}"
                self.calls[update.tool_call_id].title = update.title  # a permission says it too
        return updates

    def call(self, call_id: str) -> CallView | None:
        return self.calls.get(call_id)

    def asked_about(self, event: ApprovalRequestEvent) -> str:
        """The id of the call an approval request is about, as this view named it: a
        child's calls are ``label/id`` (:meth:`_child`), so with several children at work
        the request names its own call, not the one started last."""
        if not event.call_id:
            return self.current
        return f"{event.agent}/{event.call_id}" if event.agent else event.call_id

    def _resolve(self, raw: str) -> Path:
        path = Path(raw).expanduser()
        return (path if path.is_absolute() else self.workspace / path).resolve()

    def _start(self, event: ToolCallEvent) -> Update:
        tool = self.tools.get(event.name) if self.tools is not None else None
        effect = effect_of(tool) if tool is not None else ToolEffect.of("execute")
        paths = [self._resolve(p) for p in effect.paths(event.args)]
        view = CallView(event.name, tool_kind(effect), title_of(event.name, event.args, effect),
                        paths)
        if effect.writes:
            view.before = {p: read_snapshot(p) for p in paths}
        self.calls[event.id] = view
        self.current = event.id
        return schema.ToolCallStart(
            session_update="tool_call", tool_call_id=event.id, title=view.title,
            kind=view.kind, status="pending", raw_input=event.args,  # type: ignore[arg-type]
            locations=[schema.ToolCallLocation(path=str(p)) for p in paths])

    def _output(self, event: ToolOutputEvent) -> list[Update]:
        view = self.calls.get(event.id)
        if view is None or not event.chunk:
            return []
        view.output = (view.output + event.chunk)[-OUTPUT_SHOWN:]
        return [schema.ToolCallProgress(
            session_update="tool_call_update", tool_call_id=event.id, status="in_progress",
            content=[text_content(fenced(view.output))])]

    def _result(self, event: ToolResultEvent) -> Update:
        view = self.calls.get(event.id)
        content: list[Any] = []
        if view is not None and view.before and not event.is_error:
            content = [d for p, old in view.before.items() if (d := self._diff(p, old))]
        if not content and event.content:
            content = [text_content(fenced(event.content))]
        return schema.ToolCallProgress(
            session_update="tool_call_update", tool_call_id=event.id,
            status="failed" if event.is_error else "completed",
            content=content, raw_output=event.content)

    @staticmethod
    def _diff(path: Path, old: str | None) -> Any:
        new = read_snapshot(path)
        if new is None or new == old:
            return None
        return schema.FileEditToolCallContent(type="diff", path=str(path), old_text=old,
                                              new_text=new)

    def _usage(self, usage: Usage) -> Update:
        used = (usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
                + usage.output_tokens)
        return schema.UsageUpdate(session_update="usage_update", used=used,
                                  size=max(self.window, used))


def stop_reason(done_reason: str, last_stop: str) -> str:
    """Our DoneEvent's reason (and the last response's) → the ACP StopReason."""
    if done_reason == "interrupted":
        return "cancelled"
    if done_reason == "max_turns":
        return "max_turn_requests"
    if last_stop in ("max_tokens", "refusal"):
        return last_stop
    return "end_turn"


def usage_total(usage: Usage) -> Any:
    total = (usage.input_tokens + usage.output_tokens + usage.cache_read_tokens
             + usage.cache_write_tokens)
    return schema.Usage(total_tokens=total, input_tokens=usage.input_tokens,
                        output_tokens=usage.output_tokens,
                        cached_read_tokens=usage.cache_read_tokens or None,
                        cached_write_tokens=usage.cache_write_tokens or None)
