"""``aiagent skill export`` and ``aiagent skill import``: skills for (and from) Claude
Code, Codex and Gemini CLI, in the folders where each discovers them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from aiagent.agent.skills.distribution.names import DistError
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.frontends.cli.skill_dist_cmd import ENGINES, _errors, cwd_option
from aiagent.infra.config import paths

engine_option = click.option("--engine", "engines", multiple=True, type=click.Choice(ENGINES), default=["all"],
                             show_default=True, help="Which agent's folder (repeat for several).")
scope_option = click.option("--scope", type=click.Choice(["project", "user"]), default="project", show_default=True,
                            help="This project's folders, or the ones in your home folder.")


def _setup(cwd: str | None) -> tuple[Any, Path, Path]:

    settings = load_settings(cwd)
    home = Path(settings.env.get("HOME") or Path.home())
    return settings, paths.project_root(settings.workspace), home


def _show(outcomes: list[Any]) -> None:
    for out in outcomes:
        head = f"{out.engine} ({out.folder}):"
        parts = [f"{len(out.written)} written", f"{len(out.unchanged)} unchanged"]
        parts += [f"{len(out.pruned)} pruned"] if out.pruned else []
        click.echo(f"{head} {', '.join(parts)}")
        for name in out.written:
            click.echo(f"  wrote {name}")
        for name in out.pruned:
            click.echo(f"  pruned {name}")
        for line in out.skipped:
            click.echo(f"  skipped {line}")
        for line in dict.fromkeys(out.warnings):
            click.echo(f"  warning: {line}", err=True)


@click.command("export")
@click.argument("names", nargs=-1)
@engine_option
@scope_option
@click.option("--link/--copy", default=False, help="Symlink skills that need no conversion (default: copy).")
@click.option("--prune", is_flag=True, help="Remove skills exported earlier that are not exported now.")
@click.option("--force", is_flag=True, help="Replace folders aiagent did not write, or changed since.")
@click.option("--builtin", is_flag=True, help="Export aiagent's built-in skills too (default: yours and the project's).")
@cwd_option
def export_cmd(names: tuple[str, ...], engines: tuple[str, ...], scope: str, link: bool, prune: bool,
               force: bool, builtin: bool, cwd: str | None) -> None:
    """Write skills as portable SKILL.md where other agents find them (your own and the
    project's skills; --builtin adds aiagent's, NAMES picks any)."""
    from aiagent.agent.skills.distribution.export import (
        aiagent_skills,
        engine_dirs,
        export,
        exportable,
    )

    with _errors():
        settings, root, home = _setup(cwd)
        skills, disabled = aiagent_skills(settings, root, home)
        unknown = [n for n in names if n not in skills]
        if unknown:
            raise DistError(f"no skill named {unknown[0]!r} (known: {', '.join(sorted(skills)) or 'none'})")
        chosen = [skills[n].manifest for n in names] or exportable(skills, disabled, builtin=builtin)
        _show(export(chosen, engine_dirs(engines, scope, root, home), link=link, force=force, prune_rest=prune))


@click.command("import")
@click.argument("names", nargs=-1)
@engine_option
@scope_option
@click.option("--user", "to_user", is_flag=True, help="Into your own skills folder (default: .agent/skills).")
@click.option("--force", is_flag=True, help="Replace a skill of the same name.")
@cwd_option
def import_cmd(names: tuple[str, ...], engines: tuple[str, ...], scope: str, to_user: bool, force: bool,
               cwd: str | None) -> None:
    """Bring skills from other agents' folders into aiagent's own."""
    from aiagent.agent.skills.distribution.export import engine_dirs, import_skills
    from aiagent.agent.skills.distribution.manage import context

    with _errors():
        settings, root, home = _setup(cwd)
        target = context(settings).target(not to_user)
        result = import_skills(engine_dirs(engines, scope, root, home), target, set(names), force)
    for line in result.done:
        click.echo(f"imported {line}")
    for line in result.skipped:
        click.echo(f"skipped {line}")
    for line in result.warnings:
        click.echo(f"warning: {line}", err=True)
    if not result.done and not result.skipped:
        click.echo("no skills to import")
