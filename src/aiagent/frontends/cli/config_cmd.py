"""``aiagent config show`` and ``aiagent config path``."""

from __future__ import annotations

import os
from pathlib import Path

import click


@click.group()
def config() -> None:
    """Show the effective configuration and where it comes from."""


def _settings(cwd: str | None):  # type: ignore[no-untyped-def]
    from aiagent.infra.config.settings import ConfigError, Settings

    try:
        return Settings.load(Path(cwd or os.getcwd()))
    except ConfigError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from None


@config.command("show")
@click.option("--cwd", type=click.Path(file_okay=False))
def show(cwd: str | None) -> None:
    """Print the merged settings as TOML, secrets masked, with the layers used."""
    import tomli_w

    from aiagent.infra.config.settings import mask_secret

    settings = _settings(cwd)
    click.echo("# layers, later wins: " + " → ".join(layer.source for layer in settings.layers))
    click.echo(f"# provider: {settings.provider_name}   model: {settings.model}")
    key, source = settings.api_key()
    if source:
        state = f"set ({mask_secret(key)}) from {source}" if key else f"not set (expected in {source})"
        click.echo(f"# api key: {state}")
    click.echo(tomli_w.dumps(settings.masked()).rstrip())


@config.command("path")
@click.option("--cwd", type=click.Path(file_okay=False))
def path(cwd: str | None) -> None:
    """Print the user and project config file paths (and whether they exist)."""
    from aiagent.infra.config import paths

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

    from aiagent.infra.config import credentials

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
