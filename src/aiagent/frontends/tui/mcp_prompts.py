"""MCP servers' prompts as slash commands in the terminal UI (``/mcp__SERVER__PROMPT``).

The servers start in the background once the agent is built, so their prompts are in the
``/`` completion while the user types; running one fills it in on the server and sends the
text as the user's message.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from aiagent.agent.tools.mcp.connection import ServerDown
from aiagent.agent.tools.mcp.prompts import fill_prompt, parse_arguments
from aiagent.frontends.tui import render

if TYPE_CHECKING:
    from aiagent.frontends.tui.app import InteractiveApp


def manager_of(app: InteractiveApp) -> Any:
    parts = getattr(app, "parts", None)
    built = getattr(parts, "app", None)
    return getattr(built, "mcp", None) if getattr(app, "agent", None) is not None else None


def warm(app: InteractiveApp) -> asyncio.Future[None] | None:
    """Start the MCP servers now (not at the first message); None when there are none."""
    manager = manager_of(app)
    return asyncio.ensure_future(manager.warm()) if manager is not None else None


def prompt_commands(app: InteractiveApp) -> dict[str, Any]:
    manager = manager_of(app)
    return manager.prompt_commands() if manager is not None else {}


async def run_prompt(app: InteractiveApp, name: str, arg: str) -> None:
    """``/mcp__server__prompt args``: the filled-in prompt goes to the model as a message."""

    manager = manager_of(app)
    if manager is None:
        app.say(render.notice(f"✗ /{name}: no MCP server is configured", "red"))
        return
    await manager.warm()  # at once when the servers are up; else until they are
    command = manager.prompt_commands().get(name)
    if command is None:
        app.say(render.notice(f"✗ /{name}: no such MCP prompt (the servers that are up offer: "
                              f"{', '.join('/' + n for n in manager.prompt_commands()) or 'none'})",
                              "red"))
        return
    try:
        args = parse_arguments(command, arg)
        text = await fill_prompt(command, args, manager.options.max_result_chars)
    except (ValueError, ServerDown) as exc:
        app.say(render.notice(f"✗ {exc}", "red"))
        return
    app.say(render.notice(f"  {render.ELBOW}  MCP prompt {command.prompt} of "
                          f"{command.connection.name} ({len(text)} characters)"))
    await app.send(text)
