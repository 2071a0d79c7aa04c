"""``aiagent skill``: list, inspect, create, test, enable/disable skills, and manage the
permissions granted to them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from aiagent.agent.skills.permissions import describe
from aiagent.agent.skills.scaffold import ScaffoldError, create
from aiagent.agent.skills.state import EnableState, state_paths
from aiagent.app import Application
from aiagent.frontends.cli import skill_mcp
from aiagent.frontends.cli.settings_load import settings_flags
from aiagent.infra.config import paths
from aiagent.infra.config.settings import ConfigError, Settings

SKILL_TYPES = ["tool", "prompt", "workflow", "security-rule", "transform"]


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"aiagent: error: {message}", err=True)
    sys.exit(code)


def _runtime(cwd: str | None) -> Any:

    folder = Path(cwd or os.getcwd())
    try:
        settings = Settings.load(folder, settings_flags())
        app = Application(settings, interactive=False)
        return settings, app.skill_runtime(report=lambda m: None)
    except ConfigError as exc:
        _fail(str(exc), exc.exit_code)
        raise  # unreachable


cwd_option = click.option("--cwd", type=click.Path(file_okay=False), help="Project folder (default: here).")


@click.group()
def skill() -> None:
    """List, inspect, create, test and manage skills."""


@skill.command("list")
@cwd_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(cwd: str | None, as_json: bool) -> None:
    """Every skill found, with its source, version and state; broken ones with their error.
    MCP servers are listed as tool skills named mcp:NAME."""
    settings, rt = _runtime(cwd)
    rows = []
    for name, entry in sorted(rt.entries.items()):
        m = entry.manifest
        state, reason = _state(rt, m)
        rows.append({"name": name, "version": m.version, "source": entry.source, "types": list(m.types),
                     "state": state, "reason": reason, "overrides": rt.overrides.get(name, ""),
                     "backend": m.backend or "-", "path": str(m.root), "warnings": entry.warnings, "error": ""})
    for name, entry in sorted(rt.held.items()):
        m = entry.manifest
        rows.append({"name": name, "version": m.version, "source": entry.source, "types": list(m.types),
                     "state": "untrusted", "backend": m.backend or "-", "path": str(m.root),
                     "warnings": entry.warnings, "error": ""})
    for b in rt.broken:
        rows.append({"name": b.name, "version": "-", "source": b.source, "types": [], "state": "broken",
                     "backend": "-", "path": str(b.path), "warnings": [], "error": b.error})

    rows += skill_mcp.rows(settings)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no skills found")
        return
    width = max(len(r["name"]) for r in rows)
    out = [f"{'NAME':<{width}}  {'VERSION':<9} {'SOURCE':<8} {'STATE':<9} TYPES"]
    for r in rows:
        out.append(f"{r['name']:<{width}}  {r['version']:<9} {r['source']:<8} {r['state']:<9} {','.join(r['types'])}")
        if r["error"]:
            out.append(f"{'':<{width}}  error: {r['error']}")
        if r.get("reason") and r["state"] == "unavailable":
            out.append(f"{'':<{width}}  unavailable: {r['reason']}")
        if r.get("overrides"):
            out.append(f"{'':<{width}}  note: {r['overrides']}")
        out.extend(f"{'':<{width}}  warning: {warning}" for warning in r["warnings"])
    click.echo("\n".join(out))  # one write: 200 skills, 200 echo calls cost ~10 ms


def _state(rt: Any, m: Any) -> tuple[str, str]:
    """(state, why): disabled, unavailable here (platform, agent version), or enabled."""
    if m.name in rt.disabled:
        return "disabled", ""
    problem = rt.usable(m)
    return ("unavailable", problem) if problem else ("enabled", "")


@skill.command("info")
@click.argument("name")
@cwd_option
def info_cmd(name: str, cwd: str | None) -> None:
    """Show a skill's manifest and permissions (mcp:NAME: start the server, list its tools)."""

    settings, rt = _runtime(cwd)
    if skill_mcp.is_mcp(name):
        sys.exit(skill_mcp.info(settings, name))
    try:
        m = rt.manifest(name)
    except LookupError as exc:
        _fail(str(exc), 1)
    entry = rt.entries[name]
    state, reason = _state(rt, m)
    lines = [f"{m.name} {m.version} ({entry.source}, {state})",
             f"  {m.description}", f"  folder:   {m.root}", f"  manifest: {m.file.name}",
             f"  types:    {', '.join(m.types)}", f"  backend:  {m.backend or 'none'}"]
    t = m.triggers
    for label, values in (("files", t.files), ("keywords", t.keywords), ("languages", t.languages), ("modes", t.modes)):
        if values:
            lines.append(f"  trigger {label}: {', '.join(values)}")
    lines.append("  permissions:" + ("" if m.permissions else " none"))
    lines += [f"    {p:<16} {describe(p)}" for p in m.permissions]
    granted = {g.permission for g in rt.gate.store.grants(name)}
    if m.permissions:
        lines.append(f"  granted:  {', '.join(sorted(granted)) or 'nothing yet (asked on first activation)'}")
    lines += [f"  tool {d.name}: {d.description}" + (" (asks before running)" if d.requires_approval else "") for d in m.tools]
    lines += [f"  depends on {d.name} {d.version or ''}{' (optional)' if d.optional else ''}" for d in m.dependencies]
    if reason:
        lines.append(f"  unavailable: {reason}")
    lines += [f"  warning: {w}" for w in entry.warnings]
    if entry.shadows:
        lines.append(f"  overrides: {rt.overrides.get(name) or ', '.join(entry.shadows)}")
    click.echo("\n".join(lines))


@skill.command("create")
@click.argument("name")
@click.option("--type", "kind", type=click.Choice(SKILL_TYPES), default="tool", show_default=True)
@click.option("--backend", type=click.Choice(["starlark", "process", "python"]), default="starlark", show_default=True)
@click.option("--dir", "folder", type=click.Path(file_okay=False), help="Parent folder (default: .agent/skills).")
@click.option("--description", default="", help="One line saying what the skill does.")
def create_cmd(name: str, kind: str, backend: str, folder: str | None, description: str) -> None:
    """Scaffold a working skill with a test."""
    import re


    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        _fail(f"{name!r}: a skill name is lowercase letters, digits and hyphens")
    target = Path(folder or ".agent/skills") / name
    try:
        written = create(name, kind, backend, target, description)
    except ScaffoldError as exc:
        _fail(str(exc))
    click.echo(f"created {target}/")
    for path in written:
        click.echo(f"  {path.relative_to(target)}")
    click.echo(f"test it with: aiagent skill test {target}")


@skill.command("test")
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--strict", is_flag=True,
              help="Fail on warnings too: lint, unportable SKILL.md, broken references, untested tools.")
def test_cmd(path: str, strict: bool) -> None:
    """Run a skill's tests (tests/*.yaml) against FakeLLM."""
    import asyncio

    from aiagent.agent.skills.lint import lint
    from aiagent.agent.skills.manifest import ManifestError
    from aiagent.testing.skills import load_cases, run_cases

    try:
        warnings = lint(Path(path), [case for _, case in load_cases(path)])
        results = asyncio.run(run_cases(path))
    except ManifestError as exc:
        _fail(str(exc), 1)
    except Exception as exc:  # noqa: BLE001 - one clear line
        _fail(f"{path}: {exc}", 1)
    if not results:
        _fail(f"{path}: no test cases in tests/*.yaml (a skill is tested by cases; see docs/skills.md)", 1)
    for w in warnings:
        click.echo(f"{'FAIL' if strict else 'warning'}: {w}", err=True)
    for r in results:
        click.echo(f"{'PASS' if r.ok else 'FAIL'}  {r.file}: {r.name}" + (f"\n      {r.detail}" if r.detail else ""))
    failed = sum(not r.ok for r in results)
    summary = f"{len(results) - failed} passed, {failed} failed"
    if warnings:
        summary += f", {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" + (" (--strict: failing)" if strict else "")
    click.echo(summary)
    sys.exit(1 if failed or (strict and warnings) else 0)


def _set_enabled(name: str, on: bool, user: bool, cwd: str | None) -> None:

    settings, rt = _runtime(cwd)
    if skill_mcp.is_mcp(name):
        if not skill_mcp.known(settings, name):
            _fail(f"no skill named {name!r} (no such MCP server: see aiagent mcp list)", 1)
    elif name not in rt.entries and not any(b.name == name for b in rt.broken):
        _fail(f"no skill named {name!r}", 1)
    user_file, project_file = state_paths(paths.project_root(settings.workspace), paths.config_dir(settings.env))
    target = user_file if user else project_file
    state = EnableState.read(target)
    state.set(name, on)
    state.write(target)
    click.echo(f"{name}: {'enabled' if on else 'disabled'} ({'for you' if user else 'in this project'}; {target})")


@skill.command("enable")
@click.argument("name")
@click.option("--user", is_flag=True, help="For every project (default: this project).")
@cwd_option
def enable_cmd(name: str, user: bool, cwd: str | None) -> None:
    """Enable a skill."""
    _set_enabled(name, True, user, cwd)


@skill.command("disable")
@click.argument("name")
@click.option("--user", is_flag=True, help="For every project (default: this project).")
@cwd_option
def disable_cmd(name: str, user: bool, cwd: str | None) -> None:
    """Disable a skill."""
    _set_enabled(name, False, user, cwd)


@skill.command("permissions")
@click.argument("name")
@click.option("--revoke", is_flag=True, help="Revoke everything granted to the skill.")
@click.option("--grant", is_flag=True, help="Grant the skill's declared permissions (always).")
@cwd_option
def permissions_cmd(name: str, revoke: bool, grant: bool, cwd: str | None) -> None:
    """Show, grant or revoke the permissions of a skill."""
    import datetime


    _, rt = _runtime(cwd)
    store = rt.gate.store
    if revoke:
        count = store.revoke(name)
        click.echo(f"{name}: revoked {count} grant{'s' if count != 1 else ''}")
        return
    try:
        m = rt.manifest(name)
    except LookupError as exc:
        _fail(str(exc), 1)
    if grant and m.permissions:
        store.grant(name, m.permissions, "always", rt.gate.project, "cli")
    click.echo(f"{name} declares: {', '.join(m.permissions) or 'no permissions'}")
    grants = store.grants(name)
    if not grants:
        click.echo("granted: nothing")
    for g in grants:
        when = datetime.datetime.fromtimestamp(g.created_at).strftime("%Y-%m-%d %H:%M")
        where = f" ({g.project})" if g.project else ""
        click.echo(f"  {g.permission:<16} {g.scope}{where}, {when} — {describe(g.permission)}")


# install, add, remove, update, outdated, search, registry, export, import; list --available
from aiagent.frontends.cli.skill_dist_cmd import attach as _attach_distribution  # noqa: E402

_attach_distribution(skill)
