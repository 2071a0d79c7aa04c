"""The ``aiagent`` command.

``main`` answers ``--version`` without importing anything else; everything else goes to
the click group in :mod:`aiagent.frontends.cli.app` (top-level options live there). Sub-commands are
listed in :data:`SUBCOMMANDS` and imported only when used.
"""

from __future__ import annotations

import sys

from aiagent import __version__

#: sub-command name -> ("module:attribute", one-line help). Help is listed without importing.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tools": ("aiagent.frontends.cli.tools_cmd:tools", "List tools, or run one as the model would."),
    "config": ("aiagent.frontends.cli.config_cmd:config", "Show the effective configuration."),
    "security-audit": (
        "aiagent.frontends.cli.security_audit:security_audit",
        "Audit a project for security issues (offline, no API key).",
    ),
    "security": ("aiagent.frontends.cli.security_db:security", "Manage the offline vulnerability database."),
    "sessions": ("aiagent.frontends.cli.sessions_cmd:sessions", "List, show, export, fork or delete sessions."),
    "permissions": (
        "aiagent.frontends.cli.permissions_cmd:permissions",
        "List, add or revoke saved approvals; show the audit log.",
    ),
    "sandbox": ("aiagent.frontends.cli.sandbox_cmd:sandbox", "Check which shell sandbox is available."),
    "skill": ("aiagent.frontends.cli.skill_cmd:skill", "List, inspect, create, test and manage skills."),
    "workflow": ("aiagent.frontends.cli.workflow_cmd:workflow", "Run a workflow provided by a skill."),
    "trust": ("aiagent.frontends.cli.trust_cmd:trust", "Trust a folder: its skills and config may take effect."),
    "untrust": ("aiagent.frontends.cli.trust_cmd:untrust", "Stop trusting a folder."),
    "mcp": ("aiagent.frontends.cli.mcp_cmd:mcp", "List, add, remove and try MCP servers; serve aiagent as one."),
    "wiki": ("aiagent.frontends.cli.wiki_cmd:wiki", "Generate a documentation wiki of a project (no key needed)."),
    "serve": ("aiagent.frontends.cli.serve_cmd:serve", "Serve a local web chat (prints its URL with a token)."),
    "schedule": ("aiagent.frontends.cli.schedule_cmd:schedule", "List, add or remove scheduled tasks."),
    "acp": ("aiagent.frontends.cli.acp_cmd:acp", "Serve an editor over the Agent Client Protocol (stdio)."),
    "hooks": ("aiagent.frontends.cli.hooks_cmd:hooks", "List the user hooks configured here and where from."),
    "batch": ("aiagent.frontends.cli.batch_cmd:batch", "Run a job (security-audit, wiki, …) over many repositories."),
    "logs": ("aiagent.frontends.cli.logs_cmd:logs", "Parse a log into templates: per line (csv, jsonl) or a table."),
}


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):  # the fast path: no click, no config
        sys.stdout.write(f"aiagent, version {__version__}\n")
        return
    from aiagent.frontends.cli.errors import env_debug, guarded

    args, debug = env_debug(args)
    sys.exit(guarded(lambda: _dispatch(args), debug))


def _dispatch(args: list[str]) -> int | None:
    if not args and _at_a_terminal():  # bare `aiagent`: straight to the UI, no click
        from pathlib import Path

        from aiagent.frontends.tui import run_interactive

        return run_interactive({}, Path.cwd())
    from aiagent.frontends.cli.app import cli

    result = cli.main(args=args, prog_name="aiagent", standalone_mode=False)
    return result if isinstance(result, int) else None


def _at_a_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
