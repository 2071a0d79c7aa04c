"""The context window: token budget, provider-reported usage, compaction, spilling.

The loop calls :meth:`ContextWindow.prepare` once per request, :meth:`observe` with each
usage report, and :meth:`fit_result` on each tool result before it joins the history.

- The budget is the configured ``context_budget`` capped by the model's window.
- Tokens of a request are what the provider reported for the previous one plus an estimate
  of what was added since; without a report, an estimate corrected by the last ratio of
  reported to estimated tokens.
- When a request would pass ``compact_at`` of the budget (leaving room for the answer and
  for the summary request itself), the oldest tool outputs are trimmed; if that is not
  enough, older turns are summarised by the model. The stored history stays complete; only
  what is sent changes. If the summary fails, the session goes on: with the trimmed view,
  or, when even that does not fit, without the oldest turns.
- A single tool result bigger than ``spill_share`` of the budget is written to a file in
  the session folder; the model gets its head and tail and the path.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from aiagent.agent.core.compaction import (
    Plan,
    choose_cut,
    compaction_prompt,
    summarise,
    transcript,
    trim_note,
    trimmed_message,
    view,
)
from aiagent.agent.core.tokens import messages_tokens, text_tokens, tools_tokens
from aiagent.contracts.events import AgentEvent, CompactionEvent
from aiagent.contracts.messages import Message, ToolResultBlock, Usage
from aiagent.contracts.providers import CompletionRequest, Provider

Emit = Callable[[AgentEvent], None]
TRIM_MIN_CHARS = 400
SUMMARY_MARGIN = 512


@dataclass(frozen=True, slots=True)
class ContextSettings:
    compact_at: float = 0.8  # compact when a request would pass this share of the budget
    target: float = 0.5  # aim for this share after compacting
    keep_recent: float = 0.25  # share of the budget kept verbatim after a summary
    spill_share: float = 0.25  # a tool result bigger than this share goes to a file
    summary_tokens: int = 2048  # longest summary asked for
    protect_last: int = 4  # the newest messages' tool outputs are never trimmed

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> ContextSettings:
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})


MIN_BUDGET = 2000  # tokens; below this an overflow is not retried
OVERFLOW_SHRINK = 0.7  # after an overflow, the budget becomes 70% of what was sent


class ContextPolicy(Protocol):
    """What the loop asks of the context manager (see the module docstring)."""

    async def prepare(self, request: CompletionRequest, provider: Provider, emit: Emit
                      ) -> CompletionRequest: ...

    def observe(self, usage: Usage) -> None: ...

    def fit_result(self, call_id: str, content: str) -> str: ...

    def overflowed(self) -> bool:
        """The provider said the last request was too long: shrink the budget so the next
        ``prepare`` compacts harder. False when there is nothing left to shrink."""
        ...


class PassThrough:
    """No budget: every request goes out as it is (the default when none is configured)."""

    async def prepare(self, request: CompletionRequest, provider: Provider, emit: Emit
                      ) -> CompletionRequest:
        return request

    def observe(self, usage: Usage) -> None:
        return None

    def fit_result(self, call_id: str, content: str) -> str:
        return content

    def overflowed(self) -> bool:
        return False


@dataclass(slots=True)
class _Known:
    """What the provider reported for the last request sent."""

    count: int  # messages in that request
    version: int  # the plan it was built with
    estimate: int  # our estimate of its input, for the correction ratio
    tokens: int = 0  # reported input (incl. cached) + output


class ContextWindow:
    def __init__(
        self,
        budget: int,
        *,
        settings: ContextSettings | None = None,
        folder: Path | None = None,
        plan: Plan | None = None,
        on_plan: Callable[[dict[str, Any]], None] | None = None,
        mask: Callable[[str], str] | None = None,
    ) -> None:
        self.budget = budget
        self.mask = mask
        self.settings = settings or ContextSettings()
        self.folder = folder
        self.plan = plan or Plan()
        self.on_plan = on_plan
        self.ratio = 1.0
        self._version = 0
        self._known: _Known | None = None
        self.last_error: str | None = None

    # ---- the loop's hooks ------------------------------------------------------------

    async def prepare(self, request: CompletionRequest, provider: Provider, emit: Emit
                      ) -> CompletionRequest:
        history = request.messages
        messages = view(history, self.plan)
        need = self.estimate(messages, request)
        if need > self.budget * self.settings.compact_at:
            messages = await self._compact(history, request, provider, emit, need)
        self._known = _Known(len(messages), self._version, self._raw(messages, request))
        return replace(request, messages=messages)

    def observe(self, usage: Usage) -> None:
        known = self._known
        if known is None:
            return
        known.tokens += (usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
                         + usage.output_tokens)
        reported_input = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        if reported_input > 0 and known.estimate > 0:
            self.ratio = min(3.0, max(0.5, reported_input / known.estimate))

    def fit_result(self, call_id: str, content: str) -> str:
        """Mask secret values, then spill the result to a file if it is too large."""
        if self.mask is not None:
            content = self.mask(content)
        limit = int(self.budget * self.settings.spill_share)
        if text_tokens(content) <= limit:
            return content
        return self._spill(call_id, content, limit)

    def overflowed(self) -> bool:
        known = self._known
        sent = round(known.estimate * self.ratio) if known is not None else self.budget
        smaller = max(MIN_BUDGET, int(min(self.budget, sent) * OVERFLOW_SHRINK))
        if smaller >= self.budget:
            return False
        self.budget = smaller
        return True

    # ---- on demand -------------------------------------------------------------------

    async def compact_now(self, request: CompletionRequest, provider: Provider, emit: Emit
                          ) -> None:
        """Trim and summarise now (``/compact``, ``aiagent sessions compact``)."""
        history = request.messages
        need = self.estimate(view(history, self.plan), request)
        await self._compact(history, request, provider, emit, need, force=True)
        if self.last_error:
            raise RuntimeError(self.last_error)

    # ---- estimates -------------------------------------------------------------------

    def estimate(self, messages: list[Message], request: CompletionRequest) -> int:
        known, reserve = self._known, self.reserve(request)
        if known is not None and known.tokens and known.version == self._version \
                and len(messages) > known.count:
            return known.tokens + round(messages_tokens(messages[known.count + 1:]) * self.ratio) \
                + reserve
        return round(self._raw(messages, request) * self.ratio) + reserve

    def reserve(self, request: CompletionRequest) -> int:
        return min(request.max_tokens, self.budget // 4)

    @staticmethod
    def _raw(messages: list[Message], request: CompletionRequest) -> int:
        return text_tokens(request.system) + tools_tokens(request.tools) + messages_tokens(messages)

    # ---- compaction ------------------------------------------------------------------

    async def _compact(self, history: list[Message], request: CompletionRequest,
                       provider: Provider, emit: Emit, before: int, force: bool = False
                       ) -> list[Message]:
        target = 0 if force else int(self.budget * self.settings.target)
        plan = Plan(self.plan.upto, self.plan.summary, list(self.plan.trimmed))
        need = self._trim(history, plan, request, before, target)
        self.last_error, persist = None, True
        if need > target:
            try:
                plan = await self._summarised(history, plan, request, provider)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a failed summary must not end the run
                self.last_error = f"compaction failed: {type(exc).__name__}: {exc}"
                plan, persist = self._fallback(history, plan, request), False
        self._adopt(plan, persist)
        messages = view(history, plan)
        after = self.estimate(messages, request)
        note = plan.summary if plan.upto and persist else (self.last_error or "trimmed tool output")
        emit(CompactionEvent(before, after, note))
        return messages

    def _trim(self, history: list[Message], plan: Plan, request: CompletionRequest,
              need: int, target: int) -> int:
        """Trim the oldest tool outputs until the request fits ``target``; return the new
        estimate."""
        done = set(plan.trimmed)
        end = max(plan.upto, len(history) - self.settings.protect_last)
        for message in history[plan.upto:end]:
            for block in message.content:
                if need <= target:
                    return need
                if isinstance(block, ToolResultBlock) and block.tool_use_id not in done \
                        and len(block.content) >= TRIM_MIN_CHARS:
                    plan.trimmed.append(block.tool_use_id)
                    done.add(block.tool_use_id)
                    saved = text_tokens(block.content) - text_tokens(trim_note(block.content))
                    need -= round(saved * self.ratio)
        return need

    async def _summarised(self, history: list[Message], plan: Plan, request: CompletionRequest,
                          provider: Provider) -> Plan:
        cut = choose_cut(history, plan.upto, int(self.budget * self.settings.keep_recent))
        if cut is None:
            raise ValueError("there are no older turns to summarise")
        trimmed = set(plan.trimmed)
        older = [trimmed_message(m, trimmed) for m in history[plan.upto:cut]]
        summary_tokens = min(self.settings.summary_tokens, max(256, self.budget // 8))
        room = self.budget - summary_tokens - text_tokens(compaction_prompt()) - SUMMARY_MARGIN
        text = transcript(older, plan.summary, max(room, 256))
        summary = await summarise(provider, request.model, text, summary_tokens)
        kept_ids = {b.tool_use_id for m in history[cut:] for b in m.content
                    if isinstance(b, ToolResultBlock)}
        return Plan(cut, summary, [t for t in plan.trimmed if t in kept_ids])

    def _fallback(self, history: list[Message], plan: Plan, request: CompletionRequest) -> Plan:
        """No summary: send the trimmed view if it fits, else leave out the oldest turns."""
        if self.estimate(view(history, plan), request) <= self.budget:
            return plan
        cut = choose_cut(history, plan.upto, int(self.budget * self.settings.keep_recent))
        return plan if cut is None else Plan(cut, "", plan.trimmed)

    def _adopt(self, plan: Plan, persist: bool) -> None:
        if plan.to_dict() == self.plan.to_dict():
            return
        self.plan = plan
        self._version += 1
        if persist and self.on_plan is not None:
            self.on_plan(plan.to_dict())

    # ---- spilling --------------------------------------------------------------------

    def _spill(self, call_id: str, content: str, limit_tokens: int) -> str:
        keep = max(1000, min(limit_tokens * 2, 16000))  # characters of head and of tail
        head, tail = content[:keep], content[-keep:]
        where = "it could not be saved"
        if self.folder is not None:
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", call_id) or "result"
            path = self.folder / "tool-results" / f"{name}.txt"
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
                where = f"the full text is in {path}; read parts of it with read_file or grep"
            except OSError as exc:
                where = f"it could not be saved ({exc.strerror})"
        omitted = len(content) - len(head) - len(tail)
        return (f"[This result is too large for the context window ({len(content)} characters); "
                f"{where}. Its start and end follow.]\n{head}\n\n[… {omitted} characters left out "
                f"…]\n\n{tail}")
