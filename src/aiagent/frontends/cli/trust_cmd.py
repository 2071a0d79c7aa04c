"""``aiagent trust [PATH]``, ``aiagent trust --list`` and ``aiagent untrust [PATH]``.

PATH defaults to the current project's root (the nearest folder holding ``.git`` or
``.agent``). Folders are recorded by real path, so a symbolic link trusts its target.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from aiagent.infra.config.paths import project_root
from aiagent.infra.config.trust import TrustStore, real, store_file


def _folder(path: str | None) -> Path:

    if path is not None:
        return Path(path)
    return project_root(Path(os.getcwd()))


@click.command("trust")
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--list", "list_", is_flag=True, help="List the trusted folders.")
def trust(path: str | None, list_: bool) -> None:
    """Trust PATH (default: this project): its skills with code and its config apply."""

    store = TrustStore(store_file())
    if list_:
        if path is not None:
            raise click.UsageError("--list takes no PATH")
        for folder in store.folders():
            click.echo(str(folder))
        return
    added = store.add(_folder(path))
    click.echo(f"trusted {added} (and the folders under it)")


@click.command("untrust")
@click.argument("path", required=False, type=click.Path(file_okay=False))
def untrust(path: str | None) -> None:
    """Stop trusting PATH (default: this project)."""

    store = TrustStore(store_file())
    folder = real(_folder(path))
    if store.remove(folder):
        click.echo(f"no longer trusted: {folder}")
        return
    covering = store.covering(folder)
    hint = f"; it is inside trusted {covering} (untrust that instead)" if covering else ""
    click.echo(f"aiagent: error: {folder} was not trusted{hint}", err=True)
    raise SystemExit(2)
