"""MCP servers as tool skills (FR-5.13): ``aiagent skill list`` shows each configured
server as a skill named ``mcp:NAME``; ``skill info mcp:NAME`` starts it and lists what it
offers; ``skill enable/disable mcp:NAME`` switch it on and off like any skill."""

from __future__ import annotations

from typing import Any

from aiagent.agent.skills.state import MCP_PREFIX, mcp_disabled
from aiagent.agent.tools.mcp.config import discover
from aiagent.infra.config import paths


def is_mcp(name: str) -> bool:
    return name.startswith(MCP_PREFIX)


def rows(settings: Any) -> list[dict[str, Any]]:
    """One ``skill list`` row per configured server (nothing is started); broken entries
    and files as broken rows."""

    found = discover(settings, show_untrusted=True)
    off = mcp_disabled(paths.project_root(settings.workspace), paths.config_dir(settings.env),
                       trusted=settings.trusted)
    all_off = not settings.mcp.enabled
    out = []
    for name, config in sorted(found.servers.items()):
        state, reason = "enabled", ""
        if config.untrusted:
            state = "untrusted"
        elif all_off or not config.enabled or name in off:
            state = "disabled"
            reason = "[mcp] enabled = false" if all_off else ""
        out.append({"name": MCP_PREFIX + name, "version": "-", "source": "mcp", "types": ["tool"],
                    "state": state, "reason": reason, "overrides": "", "backend": "mcp",
                    "path": config.source, "warnings": [], "error": "",
                    "description": f"MCP server ({config.transport}): {config.describe()}"})
    out += [{"name": "mcp", "version": "-", "source": "mcp", "types": [], "state": "broken",
             "backend": "mcp", "path": "", "warnings": [], "error": problem}
            for problem in found.problems]
    return out


def known(settings: Any, name: str) -> bool:

    return name.removeprefix(MCP_PREFIX) in discover(settings, show_untrusted=True).servers


def info(settings: Any, name: str) -> int:
    """Print the server's entry, then start it and list its tools, prompts and resources."""
    import asyncio

    import click

    from aiagent.frontends.cli.mcp_cmd import try_server

    server = name.removeprefix(MCP_PREFIX)
    config = discover(settings, show_untrusted=True).servers.get(server)
    if config is None:
        click.echo(f"aiagent: error: no skill named {name!r} (no MCP server {server!r}: "
                   "see aiagent mcp list)", err=True)
        return 1
    row = next(r for r in rows(settings) if r["name"] == name)
    click.echo(f"{name} ({row['state']}): MCP server, type tool\n"
               f"  {config.transport}: {config.describe()}\n  configured in: {config.source}")
    if row["state"] != "enabled":
        return 0
    return asyncio.run(try_server(config, settings))
