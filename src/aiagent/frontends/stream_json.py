"""``-o stream-json``: one JSON object a line, written and flushed as things happen.

The line types and field names follow Claude Code's stream-json output, so a consumer
written for it reads ours (the schema of every line is ``docs/stream-json.schema.json``):

- ``{"type": "system", "subtype": "init", ...}`` first: session id, cwd, model, provider,
  tools, approval mode;
- ``{"type": "assistant", "message": {...}}`` for each model response, its content
  blocks (``text``, ``tool_use``) and its ``usage``;
- ``{"type": "user", "message": {"content": [{"type": "tool_result", ...}]}}`` for each
  tool result;
- ``{"type": "stream_event", "event": {...}}`` for the text as it streams, only with
  ``--include-partial-messages`` (as Claude Code). Deltas that arrive within
  :data:`DELTA_WAIT` seconds are sent as one line, and a long piece of text is split so that
  no line grows past :data:`DELTA_CHARS` characters of text: a model sending a token at a
  time writes at most about 20 lines a second;
- ``{"type": "system", "subtype": ...}`` for what Claude Code has no line for:
  ``plan`` (update_plan), ``permission_denied`` (a call the permission policy refused:
  nobody may approve it in a headless run, or a rule denies it; sent before its result), ``retry`` (the provider restarts the response: drop the partial text),
  ``compact_boundary``, ``error``, ``input_error`` (a bad line on stdin);
- what a child agent (the ``task`` tool) does: its ``assistant`` and ``user`` lines carry
  ``parent_tool_use_id`` (the parent's ``task`` call, as Claude Code's subagent lines do)
  and ``subagent`` (``{"name": profile, "label": "general#1"}``); a
  ``{"type": "system", "subtype": "subagent_result", ...}`` line says how the child ended
  (its turns, tokens, their cost at the child's own model, stop reason);
- ``{"type": "result", "subtype": "success" | "error_max_turns" | "error_max_budget_usd"
  | "error_during_execution", ...}`` last (one per user message with
  ``--input-format stream-json``).

A closed stdout (``aiagent … | head -1``) stops the run (the session keeps what was said)
and the process exits 141 without a traceback.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from aiagent.contracts.events import (
    AgentEvent,
    CompactionEvent,
    DoneEvent,
    ErrorEvent,
    PlanUpdatedEvent,
    RetryEvent,
    SubagentEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    UsageEvent,
)
from aiagent.contracts.messages import Message, TextBlock, ToolUseBlock, Usage

if TYPE_CHECKING:
    from aiagent.frontends.headless import Transcript

DELTA_CHARS = 16 * 1024  # most text characters in one stream_event line
DELTA_WAIT = 0.05  # seconds small deltas are gathered into one line
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a process SIGPIPE ended
RESULT_SUBTYPES = {"completed": "success", "max_turns": "error_max_turns",
                   "max_budget": "error_max_budget_usd"}


def claude_usage(usage: Usage | None) -> dict[str, int] | None:
    """Token counts in Claude Code's names (None: the server reported none)."""
    if usage is None or not any(usage.as_dict().values()):
        return None
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_read_input_tokens": usage.cache_read_tokens,
            "cache_creation_input_tokens": usage.cache_write_tokens}


def _child_cost(model: str, usage: Usage) -> float | None:
    """A task child's tokens at its own model's price (None: unknown price or no usage)."""
    from aiagent.infra.config.pricing import cost

    return cost(model, usage) if model and claude_usage(usage) is not None else None


class LineWriter:
    """Writes one JSON object a line and flushes it; a closed pipe is remembered (and
    ``on_broken`` called once) instead of raised."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.broken = False
        self.on_broken: Callable[[], None] | None = None

    def write(self, obj: dict[str, Any]) -> None:
        import json

        if self.broken:
            return
        try:
            self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream was closed
            self.broken = True
            self._silence()
            if self.on_broken is not None:
                self.on_broken()

    def _silence(self) -> None:
        """Point the closed stream at /dev/null, so what is still buffered is dropped at
        exit instead of raising again."""
        import os

        try:
            fd = self.out.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
        except (OSError, ValueError, AttributeError):
            pass


class StreamJsonRenderer:
    """Turns the agent's events into stream-json lines (see the module's doc)."""

    live = False

    def __init__(self, out: TextIO, err: TextIO, *, partial: bool = False) -> None:
        self.out, self.err, self.partial = out, err, partial
        self.lines = LineWriter(out)
        self.session_id = ""
        self.model = ""
        self.last_assistant: Callable[[], Message | None] = lambda: None
        self.price: Callable[[Usage], float | None] = lambda usage: None
        self._turn_usage = Usage()
        self._announced: set[str] = set()  # tool_use ids already sent in an assistant line
        self._block_open = False
        self._pending: list[str] = []  # deltas gathered for the next line
        self._pending_chars = 0
        self._flush_timer: Any = None
        self.started = time.monotonic()
        self._child_text: dict[str, list[str]] = {}  # a child's text of its current response

    # ---- lines -------------------------------------------------------------------------

    def _line(self, kind: str, **fields: Any) -> None:
        self.lines.write({"type": kind, **fields, "session_id": self.session_id,
                          "uuid": str(uuid.uuid4())})

    def _system(self, subtype: str, **fields: Any) -> None:
        self._line("system", subtype=subtype, **fields)

    def init(self, *, cwd: str, provider: str, tools: list[str], mode: str,
             version: str) -> None:
        self._system("init", cwd=cwd, model=self.model, provider=provider, tools=tools,
                     mcp_servers=[], permissionMode=mode, apiKeySource="none",
                     output_style="default", version=version)

    def begin(self) -> None:
        """A new user message: durations count from now."""
        self.started = time.monotonic()

    # ---- events ------------------------------------------------------------------------

    def event(self, event: AgentEvent, transcript: Transcript) -> None:
        if not isinstance(event, TextDeltaEvent):
            self._flush_deltas()
        if isinstance(event, ToolResultEvent):
            self._result(event, transcript)
            return
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _delta(self, event: TextDeltaEvent) -> None:
        if not self.partial or not event.text:
            return
        if not self._block_open:
            self._stream({"type": "content_block_start", "index": 0,
                          "content_block": {"type": "text", "text": ""}})
            self._block_open = True
        self._pending.append(event.text)
        self._pending_chars += len(event.text)
        if self._pending_chars >= DELTA_CHARS:
            self._flush_deltas()
        elif self._flush_timer is None:
            import asyncio

            self._flush_timer = asyncio.get_running_loop().call_later(DELTA_WAIT, self._flush_deltas)

    def _flush_deltas(self) -> None:
        if self._flush_timer is not None:
            self._flush_timer.cancel()
            self._flush_timer = None
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_chars = 0
        for start in range(0, len(text), DELTA_CHARS):
            self._stream({"type": "content_block_delta", "index": 0,
                          "delta": {"type": "text_delta", "text": text[start:start + DELTA_CHARS]}})

    def _stream(self, event: dict[str, Any]) -> None:
        self._line("stream_event", event=event, parent_tool_use_id=None)

    def _usage(self, event: UsageEvent) -> None:
        self._turn_usage = self._turn_usage + event.usage

    def _turn_end(self, event: TurnEndEvent) -> None:
        if self._block_open:
            self._stream({"type": "content_block_stop", "index": 0})
            self._block_open = False
        message = self.last_assistant()
        content: list[dict[str, Any]] = []
        for block in message.content if message is not None else ():
            if isinstance(block, ToolUseBlock):
                content.append({"type": "tool_use", "id": block.id, "name": block.name,
                                "input": block.input})
                self._announced.add(block.id)
            elif isinstance(block, TextBlock) and block.text:
                content.append({"type": "text", "text": block.text})
        self._assistant(content, event.stop_reason)

    def _assistant(self, content: list[dict[str, Any]], stop: str | None) -> None:
        usage = claude_usage(self._turn_usage) or {}
        self._turn_usage = Usage()
        self._line("assistant", message={
            "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
            "model": self.model, "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": usage}, parent_tool_use_id=None)

    def _call(self, event: ToolCallEvent) -> None:
        if event.id not in self._announced:  # a call written in the text (tags protocol)
            self._announced.add(event.id)
            self._assistant([{"type": "tool_use", "id": event.id, "name": event.name,
                              "input": event.args}], "tool_use")

    def _result(self, event: ToolResultEvent, transcript: Transcript) -> None:
        denial = transcript.denials[-1] if transcript.denials else None
        if denial is not None and denial["tool_use_id"] == event.id:
            self._system("permission_denied", **denial)
        self._line("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": event.id, "content": event.content,
             "is_error": event.is_error}]}, parent_tool_use_id=None)

    def _plan(self, event: PlanUpdatedEvent) -> None:
        from aiagent.frontends.headless import plan_json

        self._system("plan", plan=plan_json(event))

    def _retry(self, event: RetryEvent) -> None:
        if self._block_open:
            self._stream({"type": "content_block_stop", "index": 0})
        self._block_open = False
        self._turn_usage = Usage()
        self._system("retry", reason=event.reason, attempt=event.attempt,
                     delay_ms=round(event.delay * 1000))

    def _compaction(self, event: CompactionEvent) -> None:
        self._system("compact_boundary", compact_metadata={
            "trigger": "auto", "pre_tokens": event.before_tokens,
            "post_tokens": event.after_tokens})

    def _error(self, event: ErrorEvent) -> None:
        self._system("error", message=event.message, exit_code=event.exit_code)

    def _subagent(self, wrapped: SubagentEvent) -> None:
        """A child's event as Claude Code's subagent lines: parent_tool_use_id set."""
        inner, key = wrapped.event, f"{wrapped.id}/{wrapped.label}"
        tags = {"parent_tool_use_id": wrapped.id, "subagent": {"name": wrapped.name, "label": wrapped.label}}
        if isinstance(inner, TextDeltaEvent):
            self._child_text.setdefault(key, []).append(inner.text)
        elif isinstance(inner, RetryEvent):
            self._child_text.pop(key, None)
        elif isinstance(inner, TurnEndEvent) and inner.stop_reason == "tool_use":
            return  # its text goes out with its first tool call, in one message
        elif isinstance(inner, ToolCallEvent | TurnEndEvent):
            text = "".join(self._child_text.pop(key, []))
            content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
            if isinstance(inner, ToolCallEvent):
                content.append({"type": "tool_use", "id": inner.id, "name": inner.name, "input": inner.args})
            if content:
                self._line("assistant", message={
                    "id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                    "model": wrapped.model or self.model, "content": content,
                    "stop_reason": "tool_use" if isinstance(inner, ToolCallEvent) else inner.stop_reason,
                    "stop_sequence": None, "usage": {}}, **tags)
        elif isinstance(inner, ToolResultEvent):
            self._line("user", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": inner.id, "content": inner.content,
                 "is_error": inner.is_error}]}, **tags)
        elif isinstance(inner, DoneEvent):
            self._child_text.pop(key, None)
            self._system("subagent_result", **tags, model=wrapped.model, stop_reason=inner.stop_reason,
                         num_turns=inner.turns, usage=claude_usage(inner.usage),
                         cost_usd=_child_cost(wrapped.model, inner.usage))

    def input_error(self, line: int, message: str) -> None:
        self._system("input_error", line=line, message=message)

    # ---- the end -----------------------------------------------------------------------

    def finish(self, transcript: Transcript) -> None:
        self._flush_deltas()
        if self._block_open:  # the run ended mid-response
            self._stream({"type": "content_block_stop", "index": 0})
            self._block_open = False
        done = transcript.done or DoneEvent("error", "", 0, Usage(), 5)
        subtype = RESULT_SUBTYPES.get(done.stop_reason, "error_during_execution")
        errors = list(transcript.errors)
        if transcript.stop_message:
            errors.append(transcript.stop_message)
        self._line(
            "result", subtype=subtype, is_error=done.exit_code != 0, result=done.answer,
            num_turns=done.turns, duration_ms=round((time.monotonic() - self.started) * 1000),
            total_cost_usd=transcript.cost_usd, usage=claude_usage(done.usage),
            permission_denials=transcript.denials, stop_reason=done.stop_reason,
            exit_code=done.exit_code, errors=errors)


_HANDLERS: dict[type, Callable[[StreamJsonRenderer, Any], None]] = {
    TextDeltaEvent: StreamJsonRenderer._delta,
    UsageEvent: StreamJsonRenderer._usage,
    TurnEndEvent: StreamJsonRenderer._turn_end,
    ToolCallEvent: StreamJsonRenderer._call,
    PlanUpdatedEvent: StreamJsonRenderer._plan,
    RetryEvent: StreamJsonRenderer._retry,
    CompactionEvent: StreamJsonRenderer._compaction,
    ErrorEvent: StreamJsonRenderer._error,
    SubagentEvent: StreamJsonRenderer._subagent,
}
