"""Rendering with rich: Markdown answers, tool headers and summaries, diffs, notices.

These functions build renderables; :mod:`aiagent.frontends.tui.view` decides when they are
printed. Everything wraps to the console's width, so nothing is cut or overlaps in a
narrow terminal. Text that came from the model, a tool or a file goes through
:func:`~aiagent.frontends.terminal_text.neutralise` here (our own styling is added after), so
replayed history is as safe as the live view.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from aiagent.frontends.terminal_text import neutralise
from aiagent.frontends.tui.blocks import ToolBlock, one_line

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.text import Text

    from aiagent.contracts.events import PlanUpdatedEvent
    from aiagent.frontends.tui.terminal import TermInfo

DIFF_LINES = 40
PLAN_LINES = 8  # steps shown of a longer plan (around the one in progress)
PLAN_MARKS = {"completed": ("✓", "green"), "in_progress": ("▸", "bold cyan"),
              "pending": ("○", "dim")}
SUMMARY_LINES = 3
BULLET = "●"
ELBOW = "⎿"


def make_console(term: TermInfo, file: Any = None, width: int | None = None) -> Console:
    from rich.console import Console

    return Console(
        file=file,
        force_terminal=term.tty,
        no_color=not term.color,
        color_system="auto" if term.color else None,
        highlight=False,
        emoji=False,
        width=width,
    )


def code_theme(term: TermInfo) -> str:
    return "monokai" if term.dark else "default"


def markdown(text: str, term: TermInfo) -> RenderableType:
    """``text`` as Markdown: headings on the left, without blank lines above or below."""
    return _Trimmed(_markdown_class()(neutralise(text), code_theme=code_theme(term),
                                      inline_code_theme=code_theme(term)))


@cache
def _markdown_class() -> type:
    from rich.markdown import Heading, Markdown

    class LeftHeading(Heading):
        LEVEL_ALIGN: ClassVar[dict[str, Any]] = {}

    class AgentMarkdown(Markdown):
        elements: ClassVar[dict[str, type]] = {**Markdown.elements, "heading_open": LeftHeading}

    return AgentMarkdown


class _Trimmed:
    """A renderable minus its leading and trailing blank lines."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        lines = console.render_lines(self.inner, options, pad=False)
        blank = [not "".join(seg.text for seg in line).strip() for line in lines]
        start = next((i for i, b in enumerate(blank) if not b), len(lines))
        end = len(lines) - next((i for i, b in enumerate(reversed(blank)) if not b), len(lines))
        for line in lines[start:end]:
            yield from line
            yield Segment.line()


def tool_header(block: ToolBlock, width: int) -> Text:
    from rich.text import Text

    text = Text()
    text.append(f"{BULLET} ", style="green" if block.result is None else
                ("red" if block.is_error else "green"))
    text.append(neutralise(block.name), style="bold")
    summary = neutralise(block.summary)
    if summary:
        room = max(8, width - len(block.name) - 4)
        text.append(" " + one_line(summary, room), style="dim" if block.name else "")
    return text


def tool_summary(block: ToolBlock, width: int) -> Text:
    """The lines under a finished call: a few lines of output, and how many more."""
    from rich.text import Text

    content = block.output_lines() or (block.result or "").splitlines()
    if block.is_error and not block.output_lines():
        content = (block.result or "error").splitlines()
    shown = [ln for ln in content if ln.strip()][:SUMMARY_LINES]
    text = Text(no_wrap=True, overflow="ellipsis")
    room = max(10, width - 5)
    if not shown:
        shown = ["(no output)"]
    for index, line in enumerate(shown):
        lead = f"  {ELBOW}  " if index == 0 else "     "
        text.append(lead, style="dim")
        text.append(one_line(neutralise(line), room) + "\n", style="red" if block.is_error else "dim")
    more = max(0, len([ln for ln in content if ln.strip()]) - len(shown))
    if more:
        text.append(f"     … +{more} lines (ctrl-o to expand)\n", style="dim italic")
    text.rstrip()
    return text


def plan_block(event: PlanUpdatedEvent, width: int) -> Text:
    """The model's plan, compact: a head line (done/total, the explanation), then one line
    per step; a long plan shows the steps around the one in progress."""
    from rich.text import Text

    steps = event.steps
    done = sum(1 for s in steps if s.status == "completed")
    head = f"Plan {done}/{len(steps)} done" if steps else "Plan cleared"
    if event.explanation:
        head += " · " + neutralise(event.explanation)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("  " + one_line(head, max(10, width - 3)) + "\n", style="bold")
    now = next((i for i, s in enumerate(steps) if s.status != "completed"), len(steps))
    start = max(0, min(now - 2, len(steps) - PLAN_LINES))
    shown = steps[start:start + PLAN_LINES]
    if start:
        text.append(f"    … {start} earlier steps\n", style="dim italic")
    for step in shown:
        mark, style = PLAN_MARKS.get(step.status, ("○", "dim"))
        text.append(f"    {mark} ", style=style)
        text.append(one_line(neutralise(step.step), max(10, width - 7)) + "\n",
                    style="dim" if step.status == "completed" else style)
    rest = len(steps) - start - len(shown)
    if rest:
        text.append(f"    … {rest} more steps\n", style="dim italic")
    text.rstrip()
    return text


def plan_lines(event: PlanUpdatedEvent, width: int) -> str:
    """:func:`plan_block` as plain text (the line-mode view)."""
    return plan_block(event, width).plain


def diff_text(diff: str, limit: int | None = DIFF_LINES) -> RenderableType:
    """A unified diff coloured by line kind; at most ``limit`` lines (None: all).

    A line longer than the width wraps at words, and every row it takes keeps the
    gutter and its ``+``/``-`` marker, so a wrapped line still reads as added or removed.
    """
    lines = neutralise(diff).rstrip("\n").splitlines()
    more = 0 if limit is None else max(0, len(lines) - limit)
    return _Diff(lines if limit is None else lines[:limit], more)


DIFF_GUTTER = "    "


def _diff_style(line: str) -> str:
    if line.startswith(("+++", "---", "diff ", "index ", "***")):
        return "bold"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return "cyan" if line.startswith("@@") else ""


def _wrap_rows(console: Console, body: str, room: int) -> list[str]:
    """``body`` wrapped at words to ``room`` cells; continuation rows keep its indent."""
    from rich.text import Text

    indent = body[: len(body) - len(body.lstrip(" \t"))].expandtabs(4)
    indent = indent if len(indent) <= room // 2 else ""
    first, *rest = Text(body.expandtabs(4)).wrap(console, room, overflow="fold") or [Text("")]
    rows = [first.plain.rstrip()]
    if rest:
        tail = " ".join(row.plain.strip() for row in rest)
        wrapped = Text(tail).wrap(console, room - len(indent), overflow="fold")
        rows += [indent + row.plain.rstrip() for row in wrapped]
    return rows


class _Diff:
    """Diff lines with a gutter, wrapped to the width; see :func:`diff_text`."""

    def __init__(self, lines: list[str], more: int) -> None:
        self.lines, self.more = lines, more

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        room = max(8, options.max_width - len(DIFF_GUTTER) - 1)
        out = Text()
        for line in self.lines:
            style = _diff_style(line)
            marker, body = (line[:1], line[1:]) if line[:1] in "+- " and line else ("", line)
            if style == "bold" or line.startswith("@@"):
                marker, body = "", line
            for row in _wrap_rows(console, body, room + (0 if marker else 1)):
                out.append(DIFF_GUTTER + marker + row + "\n", style=style)
        if self.more:
            out.append(f"{DIFF_GUTTER}… +{self.more} lines (ctrl-o to expand)\n",
                       style="dim italic")
        out.rstrip()
        yield out


def diff_stats(diff: str) -> tuple[int, int]:
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def first_run(app: Any, term: TermInfo) -> RenderableType:
    """What to do when the provider has no API key (``data/first_run.md``)."""
    from importlib import resources

    text = resources.files("aiagent.frontends.tui").joinpath("data/first_run.md").read_text("utf-8")
    name = app.choice_or_named().name
    _, key_env = app.settings.api_key(name)
    key_env = key_env or f"{name.upper()}_API_KEY"
    return markdown(text.format(provider=name, key_env=key_env), term)


def notice(message: str, style: str = "dim") -> Text:
    from rich.text import Text

    return Text(neutralise(message), style=style)


def user_echo(text: str) -> Text:
    from rich.text import Text

    out = Text()
    for index, line in enumerate(neutralise(text).splitlines() or [""]):
        out.append("› " if index == 0 else "  ", style="bold cyan")
        out.append(line + "\n", style="bold")
    out.rstrip()
    return out
