"""``aiagent skill install/add/remove/update/outdated/search/registry/export/import``:
skills that travel (spec §4.12, seed 000 §2.3). Attached to the ``skill`` group of
:mod:`aiagent.frontends.cli.skill_cmd` by :func:`attach`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from aiagent.agent.skills.distribution.names import DistError
from aiagent.agent.skills.distribution.registry import from_settings
from aiagent.agent.skills.permissions import open_grant_store
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra.config.settings import ConfigError

cwd_option = click.option("--cwd", type=click.Path(file_okay=False), help="Project folder (default: here).")
refresh_option = click.option("--refresh", is_flag=True, help="Fetch the registry now, whatever its age.")
yes_option = click.option("--yes", "-y", is_flag=True, help="Install without asking.")
ENGINES = ["claude", "codex", "gemini", "all"]


@contextmanager
def _errors() -> Iterator[None]:

    try:
        yield
    except (DistError, ConfigError) as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except OSError as exc:
        click.echo(f"aiagent: error: {exc.filename or ''}: {exc.strerror or exc}", err=True)
        sys.exit(2)


def _ctx(cwd: str | None, refresh: bool = False) -> Any:
    from aiagent.agent.skills.distribution.manage import context

    return context(load_settings(cwd), refresh)


def _registry(cwd: str | None, refresh: bool) -> Any:

    return from_settings(load_settings(cwd), refresh)


def _confirm(yes: bool) -> Callable[[list[str]], bool]:
    def confirm(lines: list[str]) -> bool:
        click.echo("\n".join(lines))
        if yes:
            return True
        try:
            return click.confirm("Install?", default=False)
        except click.Abort:
            return False

    return confirm


def _grant(ctx: Any, pins: list[Any]) -> None:

    installed = ctx.installed()
    store = open_grant_store(ctx.settings.env)
    for pin in pins:
        m = installed.get(pin.name)
        if m is not None and m.permissions:
            store.grant(pin.name, m.permissions, "always", str(ctx.project_root), "skill install")
            click.echo(f"{pin.name}: granted {', '.join(m.permissions)}")


def _report(pins: list[Any], where: Path) -> None:
    for pin in pins:
        click.echo(f"installed {pin.name} {pin.version} into {where / pin.name}")


# ---- install and manage ------------------------------------------------------------------


@click.command("install")
@click.argument("specs", nargs=-1)
@click.option("--project", is_flag=True, help="Into this project's .agent/skills (recorded in .agent/skills.lock).")
@yes_option
@click.option("--approve-skills", "approve", is_flag=True, help="Install without asking and grant the declared permissions.")
@click.option("--force", is_flag=True, help="Replace a skill folder aiagent did not install.")
@refresh_option
@cwd_option
def install_cmd(specs: tuple[str, ...], project: bool, yes: bool, approve: bool, force: bool,
                refresh: bool, cwd: str | None) -> None:
    """Install NAME[@VERSION] (registry), GIT_URL[@REF] or ./PATH; with no argument,
    everything .agent/skills.lock names."""
    from aiagent.agent.skills.distribution import manage

    with _errors():
        ctx = _ctx(cwd, refresh)
        if not specs:
            pins, fresh = manage.install_locked(ctx, _confirm(yes or approve))
            for name in fresh:
                click.echo(f"{name}: as locked")
            _report(pins, ctx.project_dir)
        else:
            pins = manage.install(ctx, list(specs), project, _confirm(yes or approve), force)
            _report(pins, ctx.target(project))
        if approve:
            _grant(ctx, pins)


@click.command("add")
@click.argument("specs", nargs=-1, required=True)
@yes_option
@click.option("--approve-skills", "approve", is_flag=True, help="Add without asking and grant the declared permissions.")
@click.option("--force", is_flag=True, help="Replace a skill folder aiagent did not install.")
@refresh_option
@cwd_option
def add_cmd(specs: tuple[str, ...], yes: bool, approve: bool, force: bool, refresh: bool, cwd: str | None) -> None:
    """Add skills to this project (.agent/skills, recorded in .agent/skills.lock)."""
    from aiagent.agent.skills.distribution import manage

    with _errors():
        ctx = _ctx(cwd, refresh)
        pins = manage.install(ctx, list(specs), True, _confirm(yes or approve), force)
        _report(pins, ctx.project_dir)
        if approve:
            _grant(ctx, pins)


@click.command("remove")
@click.argument("name")
@click.option("--project", is_flag=True, help="From this project's .agent/skills (and its lock file).")
@click.option("--force", is_flag=True, help="Remove even when other skills depend on it.")
@cwd_option
def remove_cmd(name: str, project: bool, force: bool, cwd: str | None) -> None:
    """Uninstall a skill."""
    from aiagent.agent.skills.distribution import manage

    with _errors():
        folder = manage.remove_skill(_ctx(cwd), name, project, force)
        click.echo(f"removed {name} ({folder})")


@click.command("update")
@click.argument("names", nargs=-1)
@yes_option
@refresh_option
@cwd_option
def update_cmd(names: tuple[str, ...], yes: bool, refresh: bool, cwd: str | None) -> None:
    """Update installed skills (all, or NAMES) to the newest version their range allows."""
    from aiagent.agent.skills.distribution import manage

    with _errors():
        ctx = _ctx(cwd, refresh)
        pins = manage.update(ctx, list(names), _confirm(yes))
        for pin in pins:
            click.echo(f"updated {pin.name} to {pin.version}")
        if not pins:
            click.echo("everything is up to date")


@click.command("outdated")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@refresh_option
@cwd_option
def outdated_cmd(as_json: bool, refresh: bool, cwd: str | None) -> None:
    """Installed registry skills with a newer version."""
    from dataclasses import asdict

    from aiagent.agent.skills.distribution import manage

    with _errors():
        rows = manage.outdated(_ctx(cwd, refresh))
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
    elif not rows:
        click.echo("every registry skill is up to date")
    for r in [] if as_json else rows:
        click.echo(f"{r.name:<24} {r.installed:<10} wanted {r.wanted:<10} latest {r.latest:<10} ({r.where})")


@click.command("search")
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@refresh_option
@cwd_option
def search_cmd(text: str, as_json: bool, refresh: bool, cwd: str | None) -> None:
    """Search the registry's index by name, description and tags."""
    with _errors():
        found = _registry(cwd, refresh).search(text)
    _print_entries(found, as_json, f"no skill in the registry matches {text!r}")


def _print_entries(entries: list[Any], as_json: bool, empty: str) -> None:
    if as_json:
        click.echo(json.dumps([{"name": e.name, "latest": e.latest, "description": e.description,
                                "tags": list(e.tags)} for e in entries], indent=2))
        return
    if not entries:
        click.echo(empty)
        return
    click.echo("\n".join(f"{e.name:<28} {e.latest:<10} {e.description[:90]}" for e in entries))


def _list_available(cwd: str | None, as_json: bool, refresh: bool = False) -> None:
    with _errors():
        index = _registry(cwd, refresh).index()
    for warning in index.warnings:
        click.echo(f"warning: {warning}", err=True)
    _print_entries(index.entries, as_json, "the registry lists no skills")


def _extend_list(group: click.Group) -> None:
    """``skill list --available``: the registry's skills instead of the installed ones."""
    command = group.commands.get("list")
    if command is None or command.callback is None:
        return
    original = command.callback
    command.params.append(click.Option(["--available"], is_flag=True, help="List the registry's skills."))

    def callback(available: bool, **kwargs: Any) -> Any:
        if available:
            return _list_available(kwargs.get("cwd"), bool(kwargs.get("as_json")))
        return original(**kwargs)

    command.callback = callback


def attach(group: click.Group) -> None:
    """Add the distribution commands to the ``skill`` group."""
    from aiagent.frontends.cli.skill_export_cmd import export_cmd, import_cmd
    from aiagent.frontends.cli.skill_registry_cmd import registry

    for command in (install_cmd, add_cmd, remove_cmd, update_cmd, outdated_cmd, search_cmd,
                    registry, export_cmd, import_cmd):
        group.add_command(command)
    _extend_list(group)
