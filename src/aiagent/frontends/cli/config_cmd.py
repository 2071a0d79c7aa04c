"""``aiagent config show`` and ``aiagent config path``."""

from __future__ import annotations

import os
from pathlib import Path

import click

from aiagent.app import Application
from aiagent.contracts.providers import AuthError
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra.config import credentials, paths
from aiagent.infra.config.settings import Settings, mask_secret


@click.group()
def config() -> None:
    """Show the effective configuration and where it comes from."""


@config.command("show")
@click.option("--cwd", type=click.Path(file_okay=False))
def show(cwd: str | None) -> None:
    """Print the merged settings as TOML, secrets masked, with the layers used, and the
    provider and model a run here would use, and why."""
    import tomli_w


    settings = load_settings(cwd)
    click.echo("# layers, later wins: " + " → ".join(layer.source for layer in settings.layers))
    for line in run_summary(settings):
        click.echo(f"# {line}")
    data = settings.masked()
    if not settings.set_by_user("provider.default"):  # detected per run: said above, not here
        data["provider"].pop("default", None)
    click.echo(tomli_w.dumps(data).rstrip())


def run_summary(settings: object) -> list[str]:
    """What a run in this folder would use: provider, model and key, each with its reason."""

    assert isinstance(settings, Settings)
    try:
        choice = Application(settings, interactive=False).resolve()
    except AuthError as exc:
        return [f"provider: none available ({exc})"]
    lines = [f"provider: {choice.name}   ({choice.why})",
             f"model: {choice.model}   ({choice.model_why})"]
    key, source = settings.api_key(choice.name)
    if source:
        state = f"set ({mask_secret(key)}) from {source}" if key else f"not set (expected in {source})"
        lines.append(f"api key: {state}")
    return lines


@config.command("path")
@click.option("--cwd", type=click.Path(file_okay=False))
def path(cwd: str | None) -> None:
    """Print the user and project config file paths (and whether they exist)."""

    user = paths.user_config_file()
    project = paths.project_config_file(Path(cwd or os.getcwd()))
    for label, p in (("user", user), ("project", project)):
        click.echo(f"{label}: {p}{'' if p.is_file() else '  (not present)'}")


@config.command("set-key")
@click.argument("provider", type=click.Choice(["anthropic", "openai"]))
def set_key(provider: str) -> None:
    """Save PROVIDER's API key: in the system keyring when one is usable, else in a
    credentials file only you can read (0600). The key is read from stdin when piped,
    else asked for without echo."""
    import sys


    if sys.stdin.isatty():
        key = click.prompt(f"{provider} API key", hide_input=True).strip()
    else:
        key = sys.stdin.readline().strip()
    if not key:
        raise click.UsageError("no key given")
    if credentials.keyring_set(provider, key):
        click.echo(f"saved the {provider} key in the system keyring "
                   f'(set api_key_source = "keyring" under [provider.{provider}])')
        return
    path = credentials.file_set(provider, key)
    click.echo(f"saved the {provider} key in {path} (mode 0600)")
