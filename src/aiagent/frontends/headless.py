"""Headless front-end: run one task, print the result for CI.

Only the answer goes to stdout, so pipes stay clean:
- ``text``: on a terminal the model's text streams live; into a pipe, the final answer is
  written when it is known. Tool activity, retries and errors go to stderr.
- ``json``: one object at the end (answer, turns, tool calls with results, usage, stop
  reason, exit code, the session's plan).
- ``markdown``: a readable transcript at the end (with the plan as a checklist).
- ``stream-json``: one JSON object a line as things happen
  (:mod:`aiagent.frontends.stream_json`; messages on stdin:
  :mod:`aiagent.frontends.stream_json_input`).

Cost so far (when the model's price is known) and a budget's reason reach every format
(:mod:`aiagent.frontends.headless_run`).

The plan the model records (``update_plan``) is part of json and markdown output only;
text output shows the call as any other on stderr, nothing more.

Text and markdown output pass what the model and the tools wrote through
:func:`~aiagent.frontends.terminal_text.neutralise` (no raw control sequences reach the terminal);
JSON keeps the exact text, escaped by JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

from aiagent.agent.core.loop import DECLINED, EXIT_INTERNAL, NOT_ALLOWED, tracebacks_shown
from aiagent.agent.core.session import SessionRequest
from aiagent.agent.tools.plan import last_plan
from aiagent.agent.tools.shell.runtime import READABLE_ROOTS_KEY
from aiagent.contracts.events import (
    AgentEvent,
    ApprovalRequestEvent,
    DoneEvent,
    ErrorEvent,
    PlanUpdatedEvent,
    RetryEvent,
    SubagentEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from aiagent.contracts.messages import Usage
from aiagent.contracts.providers import ProviderError
from aiagent.frontends.interrupt import DaemonThreads, StopOnSignal
from aiagent.frontends.terminal_text import json_for_terminal, neutralise, safe_event, subagent_line
from aiagent.infra.config.settings import ConfigError

if TYPE_CHECKING:
    from aiagent.agent.core.session import SessionRequest
    from aiagent.app import Application

PREVIEW = 300


@dataclass
class Transcript:
    """Everything the run produced, gathered from the event stream."""

    prompt: str
    responses: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    steps: list[tuple[str, Any]] = field(default_factory=list)  # ("text", s) | ("tool", call)
    errors: list[str] = field(default_factory=list)
    done: DoneEvent | None = None
    plan: PlanUpdatedEvent | None = None  # the last one (a resumed session's, until replaced)
    subagents: list[dict[str, Any]] = field(default_factory=list)  # each task child, when done
    denials: list[dict[str, Any]] = field(default_factory=list)  # calls nobody could approve
    cost_usd: float | None = None  # dollars so far, when the model's price is known
    stop_message: str = ""  # why a budget stopped the run

    def add(self, event: AgentEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            self.current.append(event.text)
        elif isinstance(event, RetryEvent):
            self.current.clear()
        elif isinstance(event, TurnEndEvent):
            text = "".join(self.current)
            self.current.clear()
            self.responses.append(text)
            if text:
                self.steps.append(("text", text))
        elif isinstance(event, ToolCallEvent):
            call = {"id": event.id, "name": event.name, "args": event.args}
            self.tool_calls.append(call)
            self.steps.append(("tool", call))
        elif isinstance(event, ToolResultEvent):
            for call in reversed(self.tool_calls):
                if call["id"] == event.id:
                    call["result"], call["is_error"] = event.content, event.is_error
                    break
            denial = denial_of(event, self.tool_calls)
            if denial is not None:
                self.denials.append(denial)
        elif isinstance(event, PlanUpdatedEvent):
            self.plan = event
        elif isinstance(event, ErrorEvent):
            self.errors.append(event.message)
        elif isinstance(event, DoneEvent):
            self.done = event
        elif isinstance(event, SubagentEvent) and isinstance(event.event, DoneEvent):
            self.subagents.append(subagent_json(event))


def subagent_json(event: SubagentEvent) -> dict[str, Any]:
    """A finished ``task`` child: which, on what model, how it ended, its tokens (counted
    in the run's usage too) and their estimated cost at its model's price (None: unknown)."""
    from aiagent.infra.config.pricing import cost

    done = event.event
    assert isinstance(done, DoneEvent)
    reported = usage_reported(done.usage)
    return {"id": event.id, "agent": event.name, "label": event.label, "model": event.model,
            "stop_reason": done.stop_reason, "turns": done.turns,
            "usage": done.usage.as_dict() if reported else None,
            "cost_usd": cost(event.model, done.usage) if reported else None}


def denial_of(event: ToolResultEvent, calls: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The call the permission policy refused (nobody may approve it in a headless run,
    or a rule denies it), as ``{"tool_name", "tool_use_id", "tool_input"}``; else None."""
    if not event.is_error or not event.content.startswith((NOT_ALLOWED, DECLINED)):
        return None
    args: dict[str, Any] = next((c["args"] for c in reversed(calls) if c["id"] == event.id), {})
    return {"tool_name": event.name, "tool_use_id": event.id, "tool_input": args}


class Renderer:
    def __init__(self, out: TextIO, err: TextIO, live: bool) -> None:
        self.out, self.err, self.live = out, err, live
        self._streamed_any = False
        self._narration = ""  # text of the last response, shown on stderr if tools follow

    def event(self, event: AgentEvent, transcript: Transcript) -> None:
        event = safe_event(event)  # display copy; the transcript keeps the exact text
        if isinstance(event, TextDeltaEvent) and self.live:
            self.out.write(event.text)
            self.out.flush()
            self._streamed_any = True
        elif isinstance(event, ToolCallEvent):
            if self._narration:
                self._note(self._narration)
                self._narration = ""
            self._note(f"→ {event.name} {_preview(json_for_terminal(event.args))}")
        elif isinstance(event, ToolOutputEvent):
            self.err.write(event.chunk)
        elif isinstance(event, ToolResultEvent):
            mark = "✗" if event.is_error else "←"
            self._note(f"{mark} {event.name}: {_preview(event.content)}")
        elif isinstance(event, RetryEvent):
            self._note(f"… {event.reason}; retrying (attempt {event.attempt}) in {event.delay:.1f}s")
        elif isinstance(event, ErrorEvent):
            self._note(f"aiagent: error: {event.message}{_debug_hint(event)}")
        elif isinstance(event, TurnEndEvent):
            self._end_turn(transcript)
        elif isinstance(event, SubagentEvent) and (line := subagent_line(event, PREVIEW)):
            self._note(line)

    def _end_turn(self, transcript: Transcript) -> None:
        if not self.live:
            self._narration = neutralise(transcript.responses[-1]) if transcript.responses else ""
        elif self._streamed_any:
            self.out.write("\n")
            self.out.flush()
            self._streamed_any = False

    def finish(self, transcript: Transcript) -> None:
        done = transcript.done
        if not self.live and done is not None and done.answer:
            self.out.write(neutralise(done.answer).rstrip("\n") + "\n")
        note_stop(self.err, transcript)
        if done is not None and done.stop_reason != "error":  # an error stays one line
            self._note(f"aiagent: {spent_text(transcript)}")

    def _note(self, line: str) -> None:
        self.err.write(line.rstrip("\n") + "\n")
        self.err.flush()


class QuietRenderer(Renderer):
    """For json/markdown: only errors reach stderr while running."""

    def event(self, event: AgentEvent, transcript: Transcript) -> None:
        if isinstance(event, ErrorEvent | RetryEvent):
            super().event(event, transcript)


class JsonRenderer(QuietRenderer):
    def finish(self, transcript: Transcript) -> None:
        self.out.write(json_for_terminal(to_json(transcript), indent=2) + "\n")
        if transcript.stop_message:
            note_stop(self.err, transcript)


class MarkdownRenderer(QuietRenderer):
    def finish(self, transcript: Transcript) -> None:
        self.out.write(neutralise(to_markdown(transcript)))
        if transcript.stop_message:
            note_stop(self.err, transcript)


def note_stop(err: TextIO, transcript: Transcript) -> None:
    """``aiagent: stopped: why`` on stderr, when the run did not complete (nor fail)."""
    done = transcript.done
    if done is None or done.stop_reason in ("completed", "error"):
        return
    why = transcript.stop_message or _STOP_TEXT.get(done.stop_reason, done.stop_reason)
    err.write(f"aiagent: stopped: {why}\n")
    err.flush()


def spent_text(t: Transcript) -> str:
    """``tokens in/out 1200/85 · cost $0.0043`` (``unknown`` where unknown)."""
    usage = t.done.usage if t.done else None
    cost = "unknown" if t.cost_usd is None else f"${t.cost_usd:.4f}"
    return f"tokens in/out {usage_text(usage)} · cost {cost}"


_STOP_TEXT = {
    "max_turns": "turn limit reached (raise it with --max-turns)",
    "max_budget": "budget reached (raise it with --max-cost or --max-tokens)",
    "timeout": "time limit reached (raise it with --timeout)",
    "interrupted": "interrupted",
}


def usage_reported(usage: Usage | None) -> bool:
    """Whether the server reported any token usage: a server that reports none leaves all
    zeros, which is shown as "unknown", never as 0 (every real request has input)."""
    return usage is not None and any(usage.as_dict().values())


def usage_text(usage: Usage | None) -> str:
    """``in/out`` token counts, or ``unknown``."""
    if usage is None or not usage_reported(usage):
        return "unknown"
    return f"{usage.input_tokens}/{usage.output_tokens}"


def to_json(t: Transcript) -> dict[str, Any]:
    done = t.done
    return {
        "answer": done.answer if done else "",
        "turns": done.turns if done else 0,
        "tool_calls": t.tool_calls,
        # null when the server reported no usage (unknown is not zero)
        "usage": done.usage.as_dict() if done and usage_reported(done.usage) else None,
        "stop_reason": done.stop_reason if done else "error",
        "exit_code": done.exit_code if done else 5,
        "cost_usd": t.cost_usd,  # null when the model's price is unknown
        "stop_message": t.stop_message,
        "permission_denials": t.denials,
        "errors": t.errors,
        "plan": plan_json(t.plan),
        "subagents": t.subagents,
    }


def plan_json(plan: PlanUpdatedEvent | None) -> dict[str, Any] | None:
    if plan is None:
        return None
    return {"explanation": plan.explanation,
            "steps": [{"step": s.step, "status": s.status} for s in plan.steps]}


PLAN_BOXES = {"completed": "[x]", "in_progress": "[ ] **(in progress)**", "pending": "[ ]"}


def plan_markdown(plan: PlanUpdatedEvent | None) -> list[str]:
    if plan is None or not plan.steps:
        return []
    lines = ["## Plan", ""] + ([plan.explanation, ""] if plan.explanation else [])
    lines += [f"- {PLAN_BOXES[s.status]} {' '.join(s.step.split())}" for s in plan.steps]
    return [*lines, ""]


def to_markdown(t: Transcript) -> str:
    lines = ["# aiagent run", "", "## Task", "", t.prompt.strip(), ""]
    for kind, item in t.steps:
        if kind == "text":
            lines += ["## Assistant", "", item.strip(), ""]
        else:
            status = "error" if item.get("is_error") else "result"
            lines += [f"### Tool call: `{item['name']}`", "", "```json"]
            lines += [json.dumps(item["args"], ensure_ascii=False, indent=2), "```", ""]
            lines += [f"**{status}:**", "", _fence(str(item.get("result", ""))), ""]
    lines += plan_markdown(t.plan)
    for error in t.errors:
        lines += [f"> **Error:** {error}", ""]
    done = t.done
    if done is not None:
        lines += [
            "---",
            "",
            f"Stop reason: {done.stop_reason} · turns: {done.turns} · tokens in/out: "
            f"{usage_text(done.usage)} · cost: "
            f"{'unknown' if t.cost_usd is None else f'${t.cost_usd:.4f}'} · exit code: {done.exit_code}",
            "",
        ]
        if t.stop_message:
            lines += [f"Stopped: {t.stop_message}", ""]
    return "\n".join(lines)


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def _debug_hint(event: ErrorEvent) -> str:

    if event.exit_code != EXIT_INTERNAL or tracebacks_shown():
        return ""
    return " (run with --debug for the traceback)"


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"


def make_renderer(output: str, out: TextIO, err: TextIO, *, partial: bool = False) -> Any:
    """The renderer of ``output``: ``event(event, transcript)`` as the run goes,
    ``finish(transcript)`` at its end."""
    if output == "stream-json":
        from aiagent.frontends.stream_json import StreamJsonRenderer

        return StreamJsonRenderer(out, err, partial=partial)
    if output == "json":
        return JsonRenderer(out, err, live=False)
    if output == "markdown":
        return MarkdownRenderer(out, err, live=False)
    return Renderer(out, err, live=out.isatty())


async def drive(agent: Any, prompt: str, renderer: Any,
                stopper: StopOnSignal | None = None, images: Sequence[Any] = (), *,
                close: bool = True) -> Transcript:
    """Consume the agent's events; Ctrl-C and SIGTERM cancel the run cleanly (through
    ``stopper`` when given, else through the event loop's signal handlers). ``close``:
    release the agent at the end (not between the messages of one conversation)."""

    stored = getattr(getattr(agent, "conversation", None), "messages", None) or []
    transcript = Transcript(prompt, plan=last_plan(stored))
    loop = asyncio.get_running_loop()
    loop.set_default_executor(DaemonThreads())  # a thread still busy never holds the exit
    if stopper is not None:
        def cancel() -> None:  # from a signal handler: into the loop's thread
            loop.call_soon_threadsafe(agent.cancel)

        stopper.cancel_with(cancel)
    else:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, agent.cancel)
    try:
        async for event in agent.run(prompt, images) if images else agent.run(prompt):
            if isinstance(event, ApprovalRequestEvent):
                event.answer("deny")  # headless never waits for a person
            transcript.add(event)
            renderer.event(event, transcript)
    finally:
        if stopper is not None:
            stopper.cancel_with(None)
        if close:
            await agent.aclose()
    return transcript


def run_headless(
    app: Application, prompt: str, output: str, out: TextIO | None = None,
    err: TextIO | None = None, *, session: SessionRequest | None = None,
    readable: tuple[str, ...] = (), images: Sequence[Any] = (),
    stream: dict[str, bool] | None = None,
) -> int:
    """One headless run of ``prompt`` on the agent ``app`` builds (its provider already
    resolved by the caller, or resolved here). SIGINT and SIGTERM stop the run within 2 s
    whatever it is doing and exit 130 / 143 (see :mod:`aiagent.frontends.interrupt`).
    ``readable``: folders outside the workspace the tools may read (where large piped input
    was kept). ``stream``: for ``-o stream-json``, ``input`` (messages on stdin) and
    ``partial`` (stream_event lines)."""
    out, err = out or sys.stdout, err or sys.stderr
    with StopOnSignal() as stopper:
        return _run(app, prompt, output, out, err, session, readable, stopper, images,
                    stream or {})


def _run(app: Application, prompt: str, output: str, out: TextIO, err: TextIO,
         session: SessionRequest | None, readable: tuple[str, ...],
         stopper: StopOnSignal, images: Sequence[Any] = (),
         stream: dict[str, bool] | None = None) -> int:
    from aiagent.frontends.headless_run import RunMeter

    stream = stream or {}

    try:
        started = app.start(session or SessionRequest(), title=prompt)
    except (ConfigError, ProviderError) as exc:
        err.write(f"aiagent: error: {neutralise(str(exc))}\n")
        return exc.exit_code
    agent, opened = started.agent, started.session
    agent.tool_state.setdefault(READABLE_ROOTS_KEY, []).extend(readable)
    meter = RunMeter(agent)
    for note in opened.notes:
        err.write(f"aiagent: note: {note}\n")
    renderer = make_renderer(output, out, err, partial=stream.get("partial", False))

    def settle(transcript: Transcript) -> int:
        if stopper.signum and transcript.done is not None and transcript.done.stop_reason == "interrupted":
            transcript.done = replace(transcript.done, exit_code=stopper.exit_code)
        return meter.settle(transcript, renderer)

    if output == "stream-json":
        from aiagent.frontends.headless_run import stream_json_run

        code = stream_json_run(app, started, prompt, renderer, stopper, settle,
                               stream, images)
    else:
        transcript = asyncio.run(drive(agent, prompt, renderer, stopper, images))
        code = settle(transcript)
        renderer.finish(transcript)
        out.flush()
    if opened.recorder.error:  # a turn that was not saved is never a silent success
        err.write(f"aiagent: error: {opened.recorder.error}\n")
        code = code or 2
    opened.close()
    return code
