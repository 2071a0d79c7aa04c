"""The approval prompt: what a tool (or a skill) wants to do, answered with one key.

Keys: ``y`` once, ``s`` this session, ``p`` always for this project, ``a`` always,
``n`` deny, Esc deny and stop the turn. Digits 1-5 pick the options in the order shown.
Only the answers the policy offers are shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aiagent.ui.tui.blocks import call_summary

if TYPE_CHECKING:
    from rich.console import RenderableType

    from aiagent.core.events import ApprovalAnswer, ApprovalRequestEvent

LABELS: dict[str, tuple[str, str]] = {
    "once": ("y", "yes, once"),
    "session": ("s", "this session"),
    "project": ("p", "always in this project"),
    "always": ("a", "always"),
    "deny": ("n", "no"),
}
SKILL_LABELS = {"once": "allow once", "always": "allow always", "deny": "deny"}
STOP = "stop"  # Esc: deny and cancel the turn


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
    return event.tool in ("skill", "skill_activation") or "permissions" in event.args


def _permission_lines(args: dict[str, Any]) -> list[str]:
    lines = []
    for item in args.get("permissions") or []:
        if isinstance(item, dict):
            name, why = str(item.get("name", "")), str(item.get("reason", ""))
            lines.append(f"  ✓ {name}" + (f" — {why}" if why else ""))
        else:
            lines.append(f"  ✓ {item}")
    return lines


def body_lines(event: ApprovalRequestEvent) -> tuple[str, list[str]]:
    """The panel's title and its text lines (before the options)."""
    if is_skill_request(event):
        name = event.args.get("skill") or event.args.get("name") or event.what
        title = f'Skill "{name}" wants to activate'
        perms = _permission_lines(event.args)
        return title, (["Required permissions:", *perms] if perms else [event.what])
    summary = call_summary(event.tool, event.args) or event.what
    if event.tool in ("shell", "shell_command", "exec_command"):
        return f"Run this command? ({event.tool})", [f"$ {summary}"]
    if event.tool in ("write_file", "edit", "apply_patch"):
        return f"Apply this change? ({event.tool})", [summary]
    return f"Allow {event.tool}?", [summary]


def approval_panel(event: ApprovalRequestEvent, width: int) -> RenderableType:
    from rich.panel import Panel
    from rich.text import Text

    title, lines = body_lines(event)
    inner = max(10, width - 4)
    text = Text()
    for line in lines:
        text.append(line + "\n")
    text.append("\n")
    for line in pack(option_items(event.options, is_skill_request(event)), inner):
        text.append(line + "\n", style="bold")
    text.rstrip()
    return Panel(text, title=Text(title, style="bold yellow"), title_align="left",
                 border_style="yellow", width=min(width, 100), expand=True)


def answer_text(answer: ApprovalAnswer | str) -> tuple[str, str]:
    """What to print after the choice, and its style."""
    if answer == STOP:
        return "  ✗ denied; stopping the turn", "red"
    if answer == "deny":
        return "  ✗ denied", "red"
    label = {"once": "allowed once", "session": "allowed for this session",
             "project": "allowed always in this project", "always": "allowed always"}
    return f"  ✓ {label.get(answer, answer)}", "green"
