"""``aiagent mcp list|add|remove|test``: the MCP servers the agent uses; ``aiagent mcp serve``:
aiagent itself as an MCP server on stdio (:mod:`aiagent.frontends.mcp_server`).

``add`` writes Claude Code's format: ``~/.config/aiagent/mcp.json`` (``--scope user``, the
default) or the project's ``.mcp.json`` (``--scope project``, shared with other agents;
honoured in trusted folders only). Servers in ``[mcp.servers]`` of a config.toml are listed
too; change those in the file itself.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from aiagent.agent.tools.mcp.config import (
    McpConfigError,
    discover,
    parse_entry,
    project_file,
    read_json_servers,
)
from aiagent.agent.tools.mcp.connection import McpConnection, McpOptions, ServerDown
from aiagent.agent.tools.mcp.tools import check_tool, tool_name
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra.config.paths import config_dir


def _settings() -> Any:

    return load_settings()


def _scope_file(settings: Any, scope: str) -> Path:

    return project_file(settings.workspace) if scope == "project" else config_dir(settings.env) / "mcp.json"


@click.group()
def mcp() -> None:
    """List, add, remove and try MCP servers; `serve` runs aiagent as one (stdio)."""


@mcp.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per server.")
def list_servers(as_json: bool) -> None:
    """List the configured servers (nothing is started)."""

    found = discover(_settings(), show_untrusted=True)
    for config in found.servers.values():
        if as_json:
            click.echo(json.dumps({"name": config.name, "type": config.transport,
                                   "target": config.describe(), "source": config.source,
                                   "enabled": config.enabled}))
        else:
            off = "" if config.enabled else "  (disabled)"
            click.echo(f"{config.name}\t{config.transport}\t{config.describe()}\t{config.source}{off}")
    if not found.servers and not as_json:
        click.echo("no MCP servers configured (aiagent mcp add NAME -- COMMAND …)")
    for problem in found.problems:
        click.echo(f"aiagent: error: {problem}", err=True)
    if found.problems:
        raise SystemExit(2)


@mcp.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", help="A Streamable HTTP endpoint instead of a command.")
@click.option("--transport", type=click.Choice(["stdio", "http", "sse"]), default=None)
@click.option("--env", "env", multiple=True, metavar="KEY=VALUE", help="Environment for the server.")
@click.option("--header", "headers", multiple=True, metavar="KEY:VALUE", help="HTTP header.")
@click.option("--scope", type=click.Choice(["user", "project"]), default="user", show_default=True)
def add(name: str, command: tuple[str, ...], url: str | None, transport: str | None,
        env: tuple[str, ...], headers: tuple[str, ...], scope: str) -> None:
    """Add server NAME: `aiagent mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .`"""

    if bool(url) == bool(command):
        raise click.UsageError("give either a COMMAND (after --) or --url")
    entry: dict[str, Any] = {"type": transport or "http", "url": url} if url else \
        {"command": command[0], "args": list(command[1:])}
    if env:
        entry["env"] = dict(_pair(e, "=", "--env") for e in env)
    if headers:
        entry["headers"] = {k.strip(): v.strip() for k, v in (_pair(h, ":", "--header") for h in headers)}
    settings = _settings()
    path = _scope_file(settings, scope)
    try:
        parse_entry(name, entry, str(path), {})
        data = _read(path)
    except McpConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if name in data["mcpServers"]:
        raise click.ClickException(f"{path}: server {name!r} exists; remove it first")
    data["mcpServers"][name] = entry
    _write(path, data)
    click.echo(f"added MCP server {name} to {path}")


@mcp.command("remove")
@click.argument("name")
@click.option("--scope", type=click.Choice(["user", "project"]), default=None,
              help="Where to remove it from (default: wherever it is).")
def remove(name: str, scope: str | None) -> None:
    """Remove server NAME from the file `add` wrote it to."""

    settings = _settings()
    for each in ([scope] if scope else ["user", "project"]):
        path = _scope_file(settings, each)
        try:
            data = _read(path)
        except McpConfigError as exc:
            raise click.ClickException(str(exc)) from None
        if name in data["mcpServers"]:
            del data["mcpServers"][name]
            _write(path, data)
            click.echo(f"removed MCP server {name} from {path}")
            return
    elsewhere = discover(settings).servers.get(name)
    where = f"; it is configured in {elsewhere.source}: change it there" if elsewhere else ""
    raise click.ClickException(f"no MCP server {name!r} in aiagent's mcp.json or .mcp.json{where}")


@mcp.command("test")
@click.argument("name")
def test(name: str) -> None:
    """Start server NAME, list what it offers, stop it."""
    import asyncio


    settings = _settings()
    config = discover(settings).servers.get(name)
    if config is None:
        raise click.ClickException(f"no MCP server {name!r} (see aiagent mcp list)")
    sys.exit(asyncio.run(try_server(config, settings)))


async def try_server(config: Any, settings: Any) -> int:
    """Start ``config``'s server, print what it offers, stop it; the exit code."""

    conn = McpConnection(config, env=settings.env, workspace=settings.workspace,
                         options=McpOptions.from_settings(settings))
    start = time.monotonic()
    try:
        await conn.ensure()
    except ServerDown as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        return 2
    finally:
        took = time.monotonic() - start
    try:
        click.echo(f"{config.name}: started in {took:.2f} s")
        for remote in conn.tools:
            problem = check_tool(config.name, remote)
            click.echo(f"  tool {tool_name(config.name, remote.name)}" + (f"  ({problem})" if problem else ""))
        for prompt in conn.prompts:
            click.echo(f"  prompt {prompt.name}")
        for resource in conn.resources:
            click.echo(f"  resource {resource.uri}")
    finally:
        await conn.close()
    return 0


@mcp.command("serve")
@click.option("--approval-mode", "approval_mode",
              type=click.Choice(["read-only", "prompt", "auto-edit", "full-auto"]), default=None,
              help="The widest approval mode a client's run_task may use (default: [agent] "
                   "approval_mode of the config).")
@click.option("--trust", is_flag=True, help="Trust the folder for this server (its skills and config).")
@click.option("--provider", default=None, help="Provider for run_task and review_diff.")
@click.option("--model", default=None, help="Model for run_task and review_diff.")
@click.option("--cwd", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder to serve; client paths must stay inside it (default: the current one).")
@click.option("--parallel", type=click.IntRange(1, 16), default=2, show_default=True,
              help="Tool calls running at once (more wait their turn).")
@click.option("--call-timeout", type=click.FloatRange(min=1), default=3600, show_default=True,
              metavar="SECONDS", help="Stop a tool call after this long.")
def serve(approval_mode: str | None, trust: bool, provider: str | None, model: str | None,
          cwd: Path | None, parallel: int, call_timeout: float) -> None:
    """Serve aiagent's tools to an MCP client (Claude Code, Codex, Gemini CLI) on stdio."""
    from aiagent.frontends.cli.settings_load import settings_flags
    from aiagent.frontends.mcp_server.main import run
    from aiagent.frontends.mcp_server.server import ServeOptions

    folder = (cwd or Path(os.getcwd())).resolve()
    if not folder.is_dir():
        raise click.ClickException(f"--cwd {folder}: no such folder")
    flags = settings_flags({"approval_mode": approval_mode, "trust": trust, "provider": provider,
                            "model": model})
    settings = load_settings(folder, {"approval_mode": approval_mode, "trust": trust,
                                      "provider": provider, "model": model})
    options = ServeOptions(root=folder, flags=flags, cap=settings.agent.approval_mode,
                           parallel=parallel, call_timeout=call_timeout)
    sys.exit(run(options))


def _pair(text: str, sep: str, option: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise click.UsageError(f"{option} {text!r}: expected KEY{sep}VALUE")
    return key.strip(), value


def _read(path: Path) -> dict[str, Any]:

    if not path.exists():
        return {"mcpServers": {}}
    read_json_servers(path)  # one-line error for a broken file
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    """Atomically: a temporary file in the same folder, then a rename."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".mcp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
