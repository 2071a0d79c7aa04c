"""``aiagent sandbox check | run``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import click

from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra import sandbox as sb


@click.group()
def sandbox() -> None:
    """The sandbox shell commands run in (full-auto mode, or [sandbox] always = true)."""


@sandbox.command()
@click.option("--backend", default=None, help="Check this backend instead of the configured one.")
def check(backend: str | None) -> None:
    """Say which sandbox is active here. Exit code 1 when none is."""

    config = load_settings().sandbox
    info = sb.detect(backend or config.backend)
    if info.available:
        net = {"full": "blocked", "tcp": "TCP blocked (UDP not)"}.get(info.network_isolation, "not blocked")
        allowed = " (allowed by [sandbox] network)" if config.network else ""
        temps = "a private /tmp" if info.backend == "bubblewrap" else "temp folders"
        protected = ", ".join(config.protected)
        click.echo(f"sandbox: {info.backend} ({info.detail})")
        click.echo(f"writes: workspace and {temps} only; read-only in the workspace: {protected}")
        click.echo(f"network: {net}{allowed}")
        for gap in info.not_enforced:
            click.echo(f"not enforced: {gap}")
        return
    click.echo(f"sandbox: none ({info.detail})")
    click.echo(f"full-auto mode will ask before running shell commands. {sb.platform_note()}")
    raise SystemExit(1)


@sandbox.command(context_settings={"ignore_unknown_options": True})
@click.option("--network", is_flag=True, help="Allow network access.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(network: bool, command: tuple[str, ...]) -> None:
    """Run COMMAND in the sandbox, with the current folder as the workspace."""

    try:
        argv = sb.sandbox_argv(list(command), Path(os.getcwd()), network)
    except sb.SandboxUnavailable as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        raise SystemExit(1) from None
    raise SystemExit(subprocess.run(argv, check=False).returncode)
