"""``aiagent serve``: the local web chat (see docs/web.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from aiagent.app import Application
from aiagent.contracts.providers import AuthError
from aiagent.frontends.cli.settings_load import load_settings, run_options
from aiagent.frontends.web.guard import is_loopback
from aiagent.frontends.web.server import ServeOptions
from aiagent.frontends.web.server import serve as run_server


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"aiagent: error: {message}", err=True)
    raise SystemExit(code)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs --allow-remote.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port to listen on (default: a free one).")
@click.option("--allow-remote", is_flag=True,
              help="Allow a non-loopback --host (the access token is then the only key).")
@click.option("--cwd", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Project folder (default: the current one).")
@click.option("--provider", default=None, help="Provider to use.")
@click.option("--model", default=None, help="Model to use.")
def serve(host: str, port: int, allow_remote: bool, cwd: Path | None, provider: str | None,
          model: str | None) -> None:
    """Serve a local web chat over this folder's sessions; prints its URL with a token."""

    if not is_loopback(host) and not allow_remote:
        _fail(f"--host {host}: not a loopback address; add --allow-remote to listen on it "
              "(anyone who can reach it and has the token can run commands here)")
    folder = cwd or Path(os.getcwd())
    if not folder.is_dir():
        _fail(f"--cwd {folder}: no such folder")
    settings = load_settings(folder, {"provider": provider, "model": model})

    def make_application() -> object:  # built on the first API call, after the URL is out

        app = Application(settings, interactive=True)
        _say_provider(app)
        return app

    options = ServeOptions(host=host, port=port, allow_remote=allow_remote,
                           flags=_run_flags(provider, model),
                           clock_file=os.environ.get("AIAGENT_SCHEDULER_CLOCK", ""),
                           tick=_tick(os.environ.get("AIAGENT_SCHEDULER_TICK", "")))
    try:
        code = run_server(make_application, options)  # type: ignore[arg-type]
    except OSError as exc:
        _fail(f"--host {host} --port {port}: cannot listen: {exc.strerror or exc}")
    raise SystemExit(code)


def _run_flags(provider: str | None, model: str | None) -> dict[str, Any]:
    """What every scheduled run takes from this command line: provider and model, and the
    top-level ``--trust`` (``aiagent --trust serve``: this folder and the folders inside it,
    for as long as this server runs)."""
    return run_options(provider, model)


def _tick(text: str) -> float:
    """Seconds between the scheduler's looks (AIAGENT_SCHEDULER_TICK; 0: the default)."""
    try:
        return max(0.05, float(text)) if text.strip() else 0.0
    except ValueError:
        _fail(f"AIAGENT_SCHEDULER_TICK={text!r}: not a number of seconds")
        return 0.0


def _say_provider(app: Any) -> None:
    """The provider the chat and the scheduler will both use (one choice, made here)."""

    try:
        note = app.resolve().note
    except AuthError as exc:  # the page says so on the first message; the server still starts
        click.echo(f"aiagent: note: {exc}", err=True)
        return
    if note:
        click.echo(f"aiagent: {note}", err=True)
