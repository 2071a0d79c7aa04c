"""``aiagent skill registry init|add|publish``: keep a team's skill registry (a git
repository with the spec §4.12 layout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from aiagent.agent.skills.distribution.names import DistError
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.frontends.cli.skill_dist_cmd import _errors

registry_option = click.option(
    "--registry", "where", type=click.Path(file_okay=False),
    help="The registry's folder (default: [skills] registry_url when it is a folder).")


def _registry_folder(where: str | None) -> Path:

    if where:
        return Path(where).resolve()
    settings = load_settings()
    url = settings.skills.registry_url or ""
    if not url or "://" in url or url.startswith("git@"):
        raise DistError("name the registry folder with --registry (a clone of the registry you can commit to)")
    return (settings.workspace / Path(url).expanduser()).resolve()


def _say(p: Any) -> None:
    verb = "published" if p.changed else "already published:"
    click.echo(f"{verb} {p.name} {p.version} at {p.commit}")


@click.group("registry")
def registry() -> None:
    """Create and fill a skill registry (a git repository)."""


@registry.command("init")
@click.argument("path", type=click.Path(file_okay=False))
def init_cmd(path: str) -> None:
    """Create a registry (git repository with index.yaml and skills/) in PATH."""
    from aiagent.agent.skills.distribution import registry_write

    with _errors():
        registry_write.init(Path(path).resolve())
    click.echo(f"created a skill registry in {path}; point others at it with [skills] registry_url")


@registry.command("add")
@click.argument("spec")
@click.option("--path", "sub", help="The skill's folder inside the repository.")
@registry_option
def add_cmd(spec: str, sub: str | None, where: str | None) -> None:
    """Add the skill at GIT_URL[@REF] (its version from its manifest) and commit."""
    from aiagent.agent.skills.distribution import registry_write

    with _errors():
        _say(registry_write.add(_registry_folder(where), spec, sub))


@registry.command("publish")
@click.argument("path", default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--url", help="The git URL others fetch the skill from (default: remote.origin.url).")
@registry_option
def publish_cmd(path: str, url: str | None, where: str | None) -> None:
    """Publish the committed skill folder PATH (default: here) and commit."""
    from aiagent.agent.skills.distribution import registry_write

    with _errors():
        _say(registry_write.publish(_registry_folder(where), Path(path), url))
