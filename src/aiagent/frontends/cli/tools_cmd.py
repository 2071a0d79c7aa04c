"""``aiagent tools list`` and ``aiagent tools run NAME --args JSON``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from aiagent.agent.core.loop import guard
from aiagent.agent.tools.base import ToolRegistry, release_tool_state, validate_args
from aiagent.app import offered_tools, tool_settings
from aiagent.contracts.tools import ToolContext, ToolResult, effect_of
from aiagent.frontends.cli.settings_load import load_settings


def _load(cwd: str | None) -> Any:

    folder = Path(cwd or os.getcwd())
    if not folder.is_dir():
        raise click.UsageError(f"--cwd {folder}: no such folder")

    return load_settings(folder)


@click.group()
def tools() -> None:
    """List the tools, or run one exactly as the model would."""


@tools.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print name, description and schema.")
@click.option("--cwd", type=click.Path(file_okay=False))
def list_tools(as_json: bool, cwd: str | None) -> None:
    """List every tool; * marks those the current profile offers the model."""

    settings = _load(cwd)
    registry = ToolRegistry()
    offered = set(offered_tools(settings, registry))
    if as_json:
        specs = [
            {"name": s.name, "description": s.description, "input_schema": s.input_schema,
             "offered": s.name in offered}
            for s in registry.specs()
        ]
        click.echo(json.dumps(specs, indent=2, ensure_ascii=False))
        return
    for tool in registry.tools():
        mark = "*" if tool.name in offered else " "
        ro = f"{'+'.join(sorted(effect_of(tool).kinds)):<13}"
        summary = (tool.description.strip().splitlines() or [""])[0]
        click.echo(f"{mark} {tool.name:<16} {ro}  {summary[:90]}")


@tools.command("run")
@click.argument("name")
@click.option("--args", "args_json", default="{}", show_default=True, help="Arguments as JSON.")
@click.option("--cwd", type=click.Path(file_okay=False), help="Workspace folder.")
@click.option("--events", is_flag=True, help="Also print live events (output, diffs) to stderr.")
def run_tool(name: str, args_json: str, cwd: str | None, events: bool) -> None:
    """Run tool NAME and print exactly what the model would receive.

    Exit code 1 when the result is an error the model would read.
    """
    import asyncio


    settings = _load(cwd)
    registry = ToolRegistry()
    tool = registry.get(name)
    if tool is None:
        raise click.UsageError(f"unknown tool {name!r} (known: {', '.join(registry.names())})")
    try:
        args = json.loads(args_json)
    except json.JSONDecodeError as exc:
        raise click.UsageError(f"--args is not valid JSON: {exc}") from None
    if not isinstance(args, dict):
        raise click.UsageError("--args must be a JSON object")
    result = asyncio.run(_run(tool, args, settings, events))
    click.echo(result.content, nl=not result.content.endswith("\n"))
    raise SystemExit(1 if result.is_error else 0)


async def _run(tool: Any, args: dict[str, Any], settings: Any, events: bool) -> Any:

    problem = validate_args(tool, args)
    if problem:
        return ToolResult(problem, True)

    def emit(event: Any) -> None:
        if events:
            chunk = getattr(event, "chunk", None) or getattr(event, "diff", None)
            click.echo(chunk if chunk is not None else repr(event), err=True, nl=False)

    ctx = ToolContext(
        workspace=settings.workspace, call_id="cli", emit=emit,
        settings=tool_settings(settings),  # the agent's own: what the model would get
    )
    try:
        return await guard(tool.run(args, ctx), f"tool {tool.name}")
    finally:
        await release_tool_state(ctx.state)
