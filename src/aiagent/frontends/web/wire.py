"""AgentEvents as the page sees them: a type name and a JSON object.

Text goes out exactly as the model wrote it (``<shell>`` tags included); the page escapes
it before showing it. Approval requests carry what the policy offers and what the tool
declares it does (the command, the paths it writes).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from aiagent.contracts.events import (
    AgentEvent,
    ApprovalRequestEvent,
    CompactionEvent,
    DoneEvent,
    ErrorEvent,
    FileDiffEvent,
    PlanUpdatedEvent,
    RetryEvent,
    SubagentEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
    TurnEndEvent,
    UsageEvent,
)
from aiagent.contracts.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.frontends.web.engines import EngineNotice


def to_wire(event: AgentEvent | EngineNotice, workspace: Path | None = None) -> tuple[str, dict[str, Any]]:
    """(SSE event type, data) for one AgentEvent; ``workspace`` lets an approval request
    carry the diff an edit would make (the TUI's preview)."""
    if isinstance(event, TextDeltaEvent):
        return "text", {"text": event.text}
    if isinstance(event, ToolCallEvent):
        return "tool-call", {"id": event.id, "name": event.name, "args": event.args}
    if isinstance(event, ToolOutputEvent):
        return "tool-output", {"id": event.id, "stream": event.stream, "chunk": event.chunk}
    if isinstance(event, ToolResultEvent):
        return "tool-result", {"id": event.id, "name": event.name, "content": event.content,
                               "is_error": event.is_error}
    if isinstance(event, ApprovalRequestEvent):
        return "approval-request", approval_data(event, workspace)
    if isinstance(event, UsageEvent):
        return "usage", {"usage": asdict(event.usage), "total": asdict(event.total)}
    if isinstance(event, TurnEndEvent):
        return "iteration-end", {"turn": event.turn, "stop_reason": event.stop_reason}
    if isinstance(event, DoneEvent):
        return "done", {"stop_reason": event.stop_reason, "turns": event.turns,
                        "usage": asdict(event.usage), "exit_code": event.exit_code}
    if isinstance(event, ErrorEvent):
        return "error", {"message": event.message, "exit_code": event.exit_code}
    if isinstance(event, FileDiffEvent):
        return "file-diff", {"id": event.id, "path": event.path, "diff": event.diff}
    if isinstance(event, RetryEvent):
        return "retry", {"reason": event.reason, "attempt": event.attempt}
    if isinstance(event, CompactionEvent):
        return "compaction", {"before": event.before_tokens, "after": event.after_tokens}
    if isinstance(event, PlanUpdatedEvent):
        return "plan", plan_data(event)
    if isinstance(event, EngineNotice):
        return "notice", {"message": event.message}
    if isinstance(event, SubagentEvent):
        return "subagent", subagent_data(event)
    return "other", {}


def subagent_data(event: SubagentEvent) -> dict[str, Any]:
    """A ``task`` child's event: which child (``label``), under which ``task`` call (``id``),
    a display ``line`` (empty for events not shown), and the event itself as ``event``."""
    from aiagent.frontends.terminal_text import subagent_line

    kind, data = to_wire(event.event)
    return {"id": event.id, "name": event.name, "label": event.label, "model": event.model,
            "line": subagent_line(event) or "", "event": {"type": kind, "data": data}}


def plan_data(event: PlanUpdatedEvent) -> dict[str, Any]:
    """The whole plan (it replaces the last one): ``steps`` of ``{step, status}``."""
    return {"id": event.id, "explanation": event.explanation,
            "steps": [{"step": s.step, "status": s.status} for s in event.steps]}


def approval_data(event: ApprovalRequestEvent, workspace: Path | None) -> dict[str, Any]:
    effect = event.effect
    command = effect.command(event.args) if effect is not None else None
    paths = effect.paths(event.args) if effect is not None and effect.writes else []
    diff = ""
    if paths and workspace is not None:
        from aiagent.frontends.tui.preview import preview_diff

        try:
            diff = preview_diff(event.tool, event.args, workspace)
        except Exception:  # noqa: BLE001 - a preview is advisory
            diff = ""
    return {"id": event.id, "tool": event.tool, "what": event.what, "args": event.args,
            "options": list(event.options), "command": command, "paths": list(paths),
            "diff": diff, "agent": event.agent}


def message_data(message: Message) -> dict[str, Any]:
    """A stored message for the history view (content verbatim)."""
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):  # the name and size, not the bytes
            blocks.append({"type": "image", "name": block.name, "describe": block.image.describe()})
        elif isinstance(block, ToolUseBlock):
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name,
                           "input": block.input})
        elif isinstance(block, ToolResultBlock):
            blocks.append({"type": "tool_result", "tool_use_id": block.tool_use_id,
                           "content": block.content, "is_error": block.is_error})
    return {"role": message.role, "content": blocks}
