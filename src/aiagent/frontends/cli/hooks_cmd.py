"""``aiagent hooks list``: the user hooks configured for this folder, where each comes
from (layer, file, key), and those that will not run, with why (docs/hooks.md)."""

from __future__ import annotations

import json
from typing import Any

import click

from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra.config.settings import ConfigError


@click.group()
def hooks() -> None:
    """User hooks: commands run at the agent's events ([[hooks.EVENT]] in the config)."""


@hooks.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(as_json: bool) -> None:
    """List the hooks that run here and those that are ignored (and why)."""
    from aiagent.agent.hooks import config

    settings = load_settings()
    try:
        found = config.load(settings)
    except ConfigError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from None
    active = [_row(s) for s in found.active]
    ignored = [{**(_row(i.spec) if i.spec else {"source": i.source, "key": i.key}), "why": i.why}
               for i in found.ignored]
    if as_json:
        click.echo(json.dumps({"active": active, "ignored": ignored}, indent=1))
        return
    _print(active, ignored, found.allow_skips_prompt)


def _row(spec: Any) -> dict[str, Any]:
    return {"event": spec.event, "matcher": spec.matcher or "*", "command": spec.command,
            "timeout": spec.timeout, "layer": spec.origin, "source": spec.source, "key": spec.key}


def _print(active: list[dict[str, Any]], ignored: list[dict[str, Any]], allow_skips: bool) -> None:
    if not active and not ignored:
        click.echo("no hooks configured (add [[hooks.PreToolUse]] tables to your config; "
                   "see docs/hooks.md)")
        return
    click.echo(f"hooks that run ({len(active)}):" if active else "no hooks run here")
    for row in active:
        _line(row)
    if active:
        skips = "may" if allow_skips else "may not"
        click.echo(f"a PreToolUse \"allow\" {skips} answer an approval prompt "
                   "([hooks] allow_skips_prompt)")
    if ignored:
        click.echo(f"ignored ({len(ignored)}):")
        for row in ignored:
            if "event" in row:
                _line(row)
            else:
                click.echo(f"  {row['source']}: {row['key']}")
            click.echo(f"      not run: {row['why']}")


def _line(row: dict[str, Any]) -> None:
    command = " ".join(str(row["command"]).split())
    if len(command) > 60:
        command = command[:59] + "…"
    click.echo(f"  {row['event']:<16} {row['matcher']:<20} {row['timeout']:g}s  {command}")
    click.echo(f"      from {row['layer']}: {row['source']}: {row['key']}")
