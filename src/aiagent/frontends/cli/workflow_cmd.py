"""``aiagent workflow run NAME --input JSON``: run a workflow a skill provides."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import click

from aiagent.agent.skills.approvals import terminal_approver
from aiagent.agent.skills.backends.base import BackendError
from aiagent.agent.skills.permissions import PermissionDenied
from aiagent.app import Application
from aiagent.contracts.providers import ProviderError
from aiagent.frontends.cli.settings_load import load_settings
from aiagent.infra.config.settings import ConfigError, Settings


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"aiagent: error: {message}", err=True)
    sys.exit(code)


@click.group()
def workflow() -> None:
    """Run workflows provided by skills."""


def _llm(app: Any) -> Any:
    """The run's model for the workflow's LLM calls (chosen as every run chooses it), or
    None without one."""

    try:
        return app.one_shot()
    except (ProviderError, ConfigError):
        return None


async def _run(settings: Settings, name: str, data: dict[str, Any], approve: tuple[str, ...]) -> Any:
    from aiagent.agent.skills.activation import activate_workflow

    app = Application(settings, interactive=False)
    llm = _llm(app)
    rt = app.skill_runtime(approve=approve, approver=terminal_approver(), llm=llm,
                           report=lambda m: click.echo(f"aiagent: skills: {m}", err=True))
    try:
        await activate_workflow(rt, name, lambda m: click.echo(f"aiagent: skills: {m}", err=True))
        return await rt.run_workflow(name, data)
    finally:
        await rt.close()
        if llm is not None:
            await llm.aclose()


@workflow.command("run")
@click.argument("name")
@click.option("--input", "input_json", default="{}", help="The workflow's input as a JSON object.")
@click.option("--approve-skills", default="", help="Comma-separated skills whose permissions are granted.")
@click.option("--cwd", type=click.Path(file_okay=False), help="Project folder (default: here).")
def run_cmd(name: str, input_json: str, approve_skills: str, cwd: str | None) -> None:
    """Run workflow NAME and print its result."""

    try:
        data = json.loads(input_json)
    except json.JSONDecodeError as exc:
        _fail(f"--input: not valid JSON: {exc.msg} (at character {exc.pos})")
    if not isinstance(data, dict):
        _fail("--input: must be a JSON object")
    try:
        settings = load_settings(cwd)
        approve = tuple(n.strip() for n in approve_skills.split(",") if n.strip())
        result = asyncio.run(_run(settings, name, data, approve))
    except ConfigError as exc:
        _fail(str(exc), exc.exit_code)
    except (BackendError, PermissionDenied, ValueError, LookupError) as exc:
        _fail(str(exc), 1)
    if isinstance(result, dict) and "__error__" in result:
        _fail(f"workflow {name}: {result['__error__']}", 1)
    click.echo(result if isinstance(result, str) else json.dumps(result, indent=2, ensure_ascii=False))
