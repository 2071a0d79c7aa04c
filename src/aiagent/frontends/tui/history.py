"""Showing a resumed conversation: user prompts, answers as Markdown, tool calls compact,
and the last plan the model recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiagent.agent.tools.plan import last_plan
from aiagent.contracts.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.frontends.tui import render
from aiagent.frontends.tui.blocks import ToolBlock

if TYPE_CHECKING:
    from aiagent.frontends.tui.screen import Screen
    from aiagent.infra.store.sessions import SessionInfo

SHOW_LAST = 200  # messages; older ones are summarised in one line


def show_history(screen: Screen, session: SessionInfo | None, messages: list[Message]) -> None:
    skipped = max(0, len(messages) - SHOW_LAST)
    title = f" “{session.title}”" if session and session.title else ""
    screen.say(render.notice(f"↺ resumed session {session.id if session else ''}{title} · "
                          f"{len(messages)} messages", "bold"))
    if skipped:
        screen.say(render.notice(f"  … {skipped} earlier messages not shown"))
    calls: dict[str, ToolBlock] = {}
    for message in messages[skipped:]:
        for block in message.content:
            _show_block(screen, message.role, block, calls)
    plan = last_plan(messages)
    if plan is not None and plan.steps:
        screen.say(render.plan_block(plan, screen.width()))
    screen.say(render.notice("─" * min(40, screen.width())))


def _show_block(screen: Screen, role: str, block: object,
                calls: dict[str, ToolBlock]) -> None:
    width = screen.width()
    if isinstance(block, TextBlock) and block.text.strip():
        if role == "user":
            if not block.text.lstrip().startswith("<user-shell-command>"):
                screen.say(render.user_echo(block.text.strip()))
        else:
            screen.say(render.markdown(block.text, screen.term))
    elif isinstance(block, ImageBlock):
        screen.say(render.notice(f"  📎 {block.name or 'image'} ({block.image.describe()})"))
    elif isinstance(block, ToolUseBlock):
        tool = ToolBlock(block.id, block.name, dict(block.input))
        calls[block.id] = tool
        screen.say(render.tool_header(tool, width))
    elif isinstance(block, ToolResultBlock):
        tool = calls.get(block.tool_use_id) or ToolBlock(block.tool_use_id, "tool", {})
        tool.finish(block.content, block.is_error)
        screen.say(render.tool_summary(tool, width))
