"""The approval prompt: what a tool (or a skill) wants to do, answered with one key.

Keys: ``y`` once, ``s`` this session, ``p`` always for this project, ``a`` always,
``n`` deny, Esc deny and stop the turn. Digits 1-5 pick the options in the order shown.
Only the answers the policy offers are shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aiagent.agent.skills.permissions import describe
from aiagent.frontends.terminal_text import neutralise  # the command is the model's text
from aiagent.frontends.tui.blocks import call_summary

if TYPE_CHECKING:
    from rich.console import RenderableType

    from aiagent.contracts.events import ApprovalAnswer, ApprovalRequestEvent

LABELS: dict[str, tuple[str, str]] = {
    "once": ("y", "yes, once"),
    "session": ("s", "this session"),
    "project": ("p", "always in this project"),
    "always": ("a", "always"),
    "deny": ("n", "no"),
}
SKILL_LABELS = {"once": "allow once", "always": "allow always", "deny": "deny"}
STOP = "stop"  # Esc: deny and cancel the turn
PANEL_WIDTH = 100  # the box is never wider, however wide the terminal


def key_map(options: Sequence[str]) -> dict[str, str]:
    """Key → answer for the offered options (letters, digits, Enter for the first)."""
    keys: dict[str, str] = {}
    for index, option in enumerate(options, 1):
        letter = LABELS.get(option, (option[:1], option))[0]
        keys[letter] = keys[letter.upper()] = keys[str(index)] = option
    if options:
        keys["enter"] = options[0]
    if "deny" in options:
        keys["escape"] = STOP
        keys["c-c"] = STOP
    return keys


def option_items(options: Sequence[str], skill: bool) -> list[str]:
    items = []
    for option in options:
        letter, label = LABELS.get(option, (option[:1], option))
        if skill:
            label = SKILL_LABELS.get(option, label)
        items.append(f"[{letter}] {label}")
    if "deny" in options:
        items.append("[esc] no, and stop")
    return items


def pack(items: Sequence[str], width: int, gap: str = "   ") -> list[str]:
    """Items on as few lines as fit ``width``; an item is never split across lines."""
    lines: list[str] = []
    current = ""
    for item in items:
        candidate = f"{current}{gap}{item}" if current else item
        if current and len(candidate) > width:
            lines.append(current)
            current = item
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def is_skill_request(event: ApprovalRequestEvent) -> bool:
    """A skill asking for its permissions: tool ``skill:NAME`` (see
    :func:`aiagent.agent.skills.approvals.skill_request`)."""
    return event.tool == "skill" or event.tool.startswith("skill:")


def permissions_of(event: ApprovalRequestEvent) -> list[tuple[str, str]]:
    """A skill request's permissions: (name, what it allows, with its risk)."""

    if not is_skill_request(event):
        return []
    pairs: list[tuple[str, str]] = []
    for item in event.args.get("permissions") or []:
        if isinstance(item, dict):
            pairs.append((str(item.get("name", "")), str(item.get("reason", ""))))
        else:
            pairs.append((str(item), describe(str(item))))
    return pairs


def body_lines(event: ApprovalRequestEvent) -> tuple[str, list[str]]:
    """The panel's title and its text lines (before the permissions and the options); a
    ``task`` child's request names the child first."""
    title, lines = _body_lines(event)
    return (f"[{neutralise(event.agent)}] {title}" if event.agent else title), lines


def _body_lines(event: ApprovalRequestEvent) -> tuple[str, list[str]]:
    if is_skill_request(event):
        name = event.args.get("skill") or event.tool.partition(":")[2] or event.what
        title = f'Skill "{name}" wants to activate'
        return title, (["Required permissions:"] if permissions_of(event) else [event.what])
    effect = event.effect
    command = effect.command(event.args) if effect is not None else None
    if command is not None:
        return f"Run this command? ({event.tool})", [f"$ {command}"]
    paths = effect.paths(event.args) if effect is not None and effect.writes else []
    if paths:
        return f"Apply this change? ({event.tool})", [", ".join(paths)]
    summary = call_summary(event.tool, event.args) or event.what
    return f"Allow {event.tool}?", [summary]


def _permission_grid(pairs: list[tuple[str, str]]) -> RenderableType:
    """``✓ name — what it allows``, the descriptions wrapping in their own column."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for name, why in pairs:  # Text, not markup: "[low risk]" is not a style
        grid.add_row(Text(f"  ✓ {name}"), Text(f"— {why}" if why else ""))
    return grid


def approval_panel(event: ApprovalRequestEvent, width: int) -> RenderableType:
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    title, lines = body_lines(event)
    width = min(width, PANEL_WIDTH)
    inner = max(10, width - 4)  # inside the border and its padding

    parts: list[RenderableType] = [Text(neutralise("\n".join(lines)))]
    pairs = permissions_of(event)
    if pairs:
        parts.append(_permission_grid(pairs))
    options = Text("\n".join(pack(option_items(event.options, is_skill_request(event)), inner)),
                   style="bold")
    parts += [Text(""), options]
    return Panel(Group(*parts), title=Text(title, style="bold yellow"), title_align="left",
                 border_style="yellow", width=width, expand=True)


def answer_text(answer: ApprovalAnswer | str) -> tuple[str, str]:
    """What to print after the choice, and its style."""
    if answer == STOP:
        return "  ✗ denied; stopping the turn", "red"
    if answer == "deny":
        return "  ✗ denied", "red"
    label = {"once": "allowed once", "session": "allowed for this session",
             "project": "allowed always in this project", "always": "allowed always"}
    return f"  ✓ {label.get(answer, answer)}", "green"
