"""One way for every sub-command to load its folder's settings.

The top-level options that are settings (``--trust``, ``--provider``, ``--model``,
``--approval-mode``, …) reach every sub-command: ``aiagent --trust security-audit .`` trusts
the folder for that run as ``aiagent security-audit --trust .`` does. A bad setting ends the
command with one line naming the file and key, and exit code 2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from aiagent.infra.config.flags import flags_layer
from aiagent.infra.config.settings import ConfigError, Settings, merge


def top_level_options() -> dict[str, Any]:
    """The ``aiagent`` group's options of the running command (empty outside click)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return {}
    root = ctx.find_root()
    return {k: v for k, v in root.params.items() if v not in (None, False, ())}


def run_options(provider: str | None = None, model: str | None = None) -> dict[str, Any]:
    """The options a long-running command hands to each run it starts (``serve``'s scheduled
    tasks, ``acp``'s sessions): its own ``--provider``/``--model``, else the top-level ones,
    and the top-level ``--trust``. Only those set."""
    top = top_level_options()
    options = {"provider": provider or top.get("provider"), "model": model or top.get("model"),
               "trust": bool(top.get("trust"))}
    return {k: v for k, v in options.items() if v}


def settings_flags(options: Mapping[str, Any] | None = None,
                   extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The command-line layer: the top-level options, then the sub-command's own (which
    win), then ``extra`` (already shaped like config.toml)."""
    merged = {**top_level_options(), **{k: v for k, v in (options or {}).items()
                                        if v not in (None, False, ())}}
    layer = flags_layer(merged)
    return merge(layer, extra) if extra else layer


def load_settings(cwd: Path | str | None = None, options: Mapping[str, Any] | None = None,
                  extra: Mapping[str, Any] | None = None) -> Settings:
    """The settings of ``cwd`` (default: the current folder) with the command line on top;
    a bad setting is one line on stderr and exit 2."""
    folder = Path(cwd or os.getcwd())
    try:
        return Settings.load(folder, settings_flags(options, extra))
    except ConfigError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from None
