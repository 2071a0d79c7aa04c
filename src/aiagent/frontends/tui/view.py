"""One turn on screen: the event stream turned into scrollback plus a small live area.

Finished things (Markdown blocks, tool headers and summaries, diffs) are printed once
and stay in the terminal's scrollback. The live area at the bottom holds the Markdown
block being written, the last lines of a running command, and a spinner line with the
elapsed time and the keys that work now. It is redrawn at most ~12 times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from aiagent.contracts.events import (
    AgentEvent,
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
)
from aiagent.frontends.terminal_text import neutralise, safe_event, subagent_line
from aiagent.frontends.tui import render
from aiagent.frontends.tui.blocks import ToolBlock, one_line
from aiagent.frontends.tui.markdown_stream import MarkdownStream

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.live import Live

    from aiagent.frontends.tui.terminal import TermInfo

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK = 0.08
TOOL_TAIL = 5
STOP_TEXT = {
    "max_turns": "turn limit reached",
    "timeout": "time limit reached",
    "max_budget": "budget reached ([agent] max_cost / max_tokens)",
    "interrupted": "interrupted",
}


class TurnView:
    """Renders one turn's events. ``start`` / ``stop`` bracket the live area."""

    def __init__(self, console: Console, term: TermInfo) -> None:
        self.console, self.term = console, term
        self.stream = MarkdownStream(self._commit_markdown)
        self.blocks: dict[str, ToolBlock] = {}
        self.finished: list[ToolBlock] = []
        self.active: ToolBlock | None = None
        self.label = "Thinking"
        self.question = ""  # set while an approval is pending
        self.typed = ""  # what the user typed ahead, shown under the spinner
        self.started = time.monotonic()
        self.changed_files = False
        self._live: Live | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._printed_text = False

    # ---- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        from rich.live import Live

        self._live = Live(_LiveArea(self), console=self.console, auto_refresh=False,
                          transient=True, redirect_stdout=False, redirect_stderr=False)
        self._live.start()
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self.stream.flush()
        if self._live is not None:
            self._live.stop()
            self._live = None

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            self.refresh()

    def refresh(self) -> None:
        if self._live is not None:
            self._live.refresh()

    def print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    # ---- events ----------------------------------------------------------------------

    def handle(self, event: AgentEvent) -> None:
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(safe_event(event))  # model and tool text: no raw control sequences

    def _on_text_delta(self, event: TextDeltaEvent) -> None:
        self.label = "Writing"
        self.stream.feed(event.text)

    def _on_retry(self, event: RetryEvent) -> None:
        self.stream.reset()
        self.print(render.notice(
            f"↻ {event.reason}; retrying (attempt {event.attempt}) in {event.delay:.1f}s",
            "yellow"))

    def _on_turn_end(self, event: TurnEndEvent) -> None:
        self.stream.flush()
        self.label = "Thinking"

    def _on_tool_call(self, event: ToolCallEvent) -> None:
        self.stream.flush()
        block = ToolBlock(event.id, event.name, dict(event.args))
        self.blocks[event.id] = block
        self.active = block
        self.label = f"Running {event.name}"
        self._spacer()
        self.print(render.tool_header(block, self.console.width))

    def _on_tool_output(self, event: ToolOutputEvent) -> None:
        block = self.blocks.get(event.id)
        if block is not None:
            block.add_output(event.chunk)

    def _on_file_diff(self, event: FileDiffEvent) -> None:
        self.changed_files = True
        block = self.blocks.get(event.id)
        if block is not None:
            block.diffs.append(event.diff)
        added, removed = render.diff_stats(event.diff)
        self.print(render.notice(f"  {render.ELBOW}  {event.path}  +{added} -{removed}", "dim"))
        if block is None or not block.previewed:
            self.print(render.diff_text(event.diff))

    def _on_tool_result(self, event: ToolResultEvent) -> None:
        block = self.blocks.get(event.id) or ToolBlock(event.id, event.name, {})
        block.finish(event.content, event.is_error)
        self.finished.append(block)
        if self.active is block:
            self.active = None
        self.label = "Thinking"
        if block.is_error or not (block.diffs or block.quiet):
            self.print(render.tool_summary(block, self.console.width))

    def _on_plan(self, event: PlanUpdatedEvent) -> None:
        block = self.blocks.get(event.id)
        if block is not None:
            block.quiet = True
        self.print(render.plan_block(event, self.console.width))

    def _on_subagent(self, event: SubagentEvent) -> None:
        """A ``task`` child's step: one labelled line, and the spinner says who is busy."""
        inner = event.event
        if isinstance(inner, ToolCallEvent):
            self.label = f"{neutralise(event.label)}: {inner.name}"
        self.changed_files = self.changed_files or isinstance(inner, FileDiffEvent)
        line = subagent_line(event, max(40, self.console.width - 2))
        if line:
            self.print(render.notice(line, "cyan"))

    def _on_compaction(self, event: CompactionEvent) -> None:
        self.print(render.notice(
            f"⇣ context compacted: {event.before_tokens} → {event.after_tokens} tokens"))

    def _on_error(self, event: ErrorEvent) -> None:
        self.stream.flush()
        self.print(render.notice(f"✗ {event.message}", "bold red"))

    def _on_done(self, event: DoneEvent) -> None:
        self.stream.flush()
        if self.active is not None:  # stopped while a tool ran: keep what it printed
            self.active.finish("(stopped)", True)
            self.finished.append(self.active)
            self.print(render.tool_summary(self.active, self.console.width))
            self.active = None
        if event.stop_reason in STOP_TEXT:
            self.print(render.notice(f"■ {STOP_TEXT[event.stop_reason]}", "yellow"))

    # ---- output helpers --------------------------------------------------------------

    def _commit_markdown(self, text: str) -> None:
        if not self._printed_text:
            self._spacer()
        else:
            self.print("")
        self.print(render.markdown(text, self.term))
        self._printed_text = True

    def _spacer(self) -> None:
        self.print("")
        self._printed_text = False

    def status_text(self, width: int) -> str:
        frame = FRAMES[int(time.monotonic() / TICK) % len(FRAMES)]
        if self.question:
            return one_line(neutralise(self.question), width)
        seconds = int(time.monotonic() - self.started)
        text = f"{frame} {self.label}… {seconds}s · esc to interrupt"
        return one_line(text, width)


class _LiveArea:
    """The bottom of the screen while a turn runs."""

    def __init__(self, view: TurnView) -> None:
        self.view = view

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment
        from rich.text import Text

        view, width = self.view, options.max_width
        room = max(3, (options.height or console.height) - TOOL_TAIL - 3)
        if view.stream.pending.strip():
            lines = console.render_lines(render.markdown(view.stream.pending, view.term),
                                         options.update(height=None), pad=False)
            yield Text("")
            for line in lines[-room:]:
                yield from line
                yield Segment.line()
        block = view.active
        if block is not None:
            for output in block.tail(TOOL_TAIL):
                yield Text("  │ " + one_line(output, width - 5), style="dim", no_wrap=True)
        yield Text(view.status_text(width - 1), style="cyan" if view.question else "dim",
                   no_wrap=True)
        if view.typed:
            yield Text(one_line(f"› {view.typed}", width - 1), style="bold", no_wrap=True)


class PlainView:
    """No terminal on stdout: plain lines, no colour, no cursor movement."""

    def __init__(self, out: Any, console: Any = None) -> None:
        self.out, self.console = out, console
        self.finished: list[ToolBlock] = []
        self.blocks: dict[str, ToolBlock] = {}
        self.changed_files = False
        self.question = ""
        self.typed = ""
        self._in_text = False

    def start(self) -> None:
        return None

    async def stop(self) -> None:
        self._end_text()

    def refresh(self) -> None:
        return None

    def print(self, renderable: Any) -> None:
        self._end_text()
        if isinstance(renderable, str) or self.console is None:
            self.out.write(f"{getattr(renderable, 'plain', renderable)}\n")
        else:
            self.console.print(renderable)
        self.out.flush()

    def _end_text(self) -> None:
        if self._in_text:
            self.out.write("\n")
            self._in_text = False

    def handle(self, event: AgentEvent) -> None:
        event = safe_event(event)
        if isinstance(event, TextDeltaEvent):
            self.out.write(event.text)
            self._in_text = not event.text.endswith("\n")
        elif isinstance(event, ToolCallEvent):
            block = ToolBlock(event.id, event.name, dict(event.args))
            self.blocks[event.id] = block
            self.print(f"→ {event.name} {one_line(block.summary, 200)}")
        elif isinstance(event, ToolOutputEvent):
            self._end_text()
            self.out.write(event.chunk)
        elif isinstance(event, FileDiffEvent):
            self.changed_files = True
            self.print(event.diff.rstrip("\n"))
        elif isinstance(event, PlanUpdatedEvent):
            if event.id in self.blocks:
                self.blocks[event.id].quiet = True
            self.print(render.plan_lines(event, 100))
        elif isinstance(event, ToolResultEvent):
            block = self.blocks.get(event.id) or ToolBlock(event.id, event.name, {})
            block.finish(event.content, event.is_error)
            self.finished.append(block)
            mark = "✗" if event.is_error else "←"
            if event.is_error or not block.quiet:
                self.print(f"{mark} {event.name}: {one_line(event.content, 300)}")
        elif isinstance(event, RetryEvent):
            self.print(f"… {event.reason}; retrying (attempt {event.attempt})")
        elif isinstance(event, ErrorEvent):
            self.print(f"error: {event.message}")
        elif isinstance(event, DoneEvent) and event.stop_reason in STOP_TEXT:
            self.print(f"stopped: {STOP_TEXT[event.stop_reason]}")
        elif isinstance(event, SubagentEvent) and (line := subagent_line(event)):
            self.changed_files = self.changed_files or isinstance(event.event, FileDiffEvent)
            self.print(line)
        self.out.flush()
