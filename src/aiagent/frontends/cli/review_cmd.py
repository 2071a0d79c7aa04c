"""``aiagent --headless --mode code-review``: pick the diff, build the agent through app.py
(read-only approval mode) when a model is available, run the review pipeline, print or post
the report, and apply the gates (``--fail-on``, ``--max-findings``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aiagent.agent.core.session import SessionRequest
from aiagent.app import Application
from aiagent.contracts.providers import AuthError, ProviderError
from aiagent.engines.review import (
    DiffSpec,
    PipelineError,
    ReviewInputError,
    ReviewRequest,
    forge,
    gate,
)
from aiagent.engines.review.render import RENDERERS
from aiagent.frontends.cli.review_save import parse_saves, write_saves
from aiagent.infra.config.flags import flags_layer
from aiagent.infra.config.settings import ConfigError, Settings

if TYPE_CHECKING:
    from aiagent.app import Started
    from aiagent.engines.review import DiffSpec

EXIT_GATE, EXIT_USAGE = 1, 2


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    click.echo(f"aiagent: error: {message}", err=True)
    return code


def _note(message: str) -> None:
    click.echo(f"aiagent: note: {message}", err=True)


def diff_spec(options: dict[str, Any]) -> DiffSpec:

    chosen = [f for f, v in (("--diff", options.get("diff")), ("--staged", options.get("staged")),
                             ("--base", options.get("base"))) if v]
    if len(chosen) > 1:
        raise ConfigError(f"{chosen[0]} and {chosen[1]} cannot be used together")
    return DiffSpec(range=options.get("diff") or "", staged=bool(options.get("staged")),
                    base=options.get("base") or "")


def run_review(options: dict[str, Any]) -> int:

    cwd = Path(options.get("cwd") or os.getcwd())
    if not cwd.is_dir():
        return _fail(f"--cwd {cwd}: no such folder")
    try:
        spec = diff_spec(options)
        options = {**options, "saves": parse_saves(options.get("save"))}
        settings = Settings.load(cwd, flags_layer({**options, "approval_mode": "read-only"}))
    except ConfigError as exc:
        return _fail(str(exc), exc.exit_code)
    output = options.get("output") or "text"
    built: list[Started] = []

    def make_agent() -> Any:
        started = _agent(settings, spec)
        if started is None:
            return None
        built.append(started)
        return started.agent

    try:
        from aiagent.engines.review import review
        from aiagent.engines.security.defaults import load_defaults

        report = review(ReviewRequest(cwd, spec, security=load_defaults(settings)), make_agent)
    except (ReviewInputError, ConfigError, PipelineError) as exc:
        return _fail(str(exc), exc.exit_code)
    finally:
        for started in built:
            started.close()
    return _finish(report, options, output)


def _agent(settings: Settings, spec: DiffSpec) -> Started | None:
    """The agent for the model part, built the one way (app.py), or None without a model."""

    app = Application(settings, interactive=False)
    try:
        if note := app.resolve().note:
            _note(note)
        return app.start(SessionRequest(), title=f"code review of {spec.describe()}")
    except AuthError as exc:
        _note(f"{exc}")
        return None
    except ProviderError as exc:
        raise ConfigError(str(exc)) from None


def _finish(report: Any, options: dict[str, Any], output: str) -> int:

    for note in report.notes:
        _note(note)
    for line in report.discarded:
        _note(f"model finding discarded: {line}")
    reason = gate(report.findings, options.get("fail_on"), options.get("max_findings"))
    save_errors = write_saves(options.get("saves") or [], report, reason)  # before posting
    for error in save_errors:
        click.echo(f"aiagent: error: {error}", err=True)
    if output in ("github", "gitlab"):
        code = _forge(report, output, reason, bool(options.get("dry_run")))
        if code:
            return code
    else:
        sys.stdout.write(RENDERERS["markdown" if output == "text" else output](report, reason))
        sys.stdout.flush()
    for error in report.errors:
        click.echo(f"aiagent: error: {error}", err=True)
    if report.exit_code:
        return int(report.exit_code)
    if save_errors:
        return EXIT_USAGE
    if reason:
        click.echo(f"aiagent: gate failed: {reason}", err=True)
        return EXIT_GATE
    return 0


def _forge(report: Any, output: str, reason: str, dry_run: bool) -> int:
    import json


    payload = (forge.github_payload(report, reason) if output == "github"
               else forge.gitlab_payload(report, reason))
    if dry_run:
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return 0
    if report.empty:
        _note("nothing posted: the diff is empty")
        return 0
    post = forge.post_github if output == "github" else forge.post_gitlab
    try:
        done = post(report, reason, os.environ)
    except forge.ForgeError as exc:
        return _fail(str(exc), exc.exit_code)
    click.echo(f"aiagent: {done}", err=True)
    return 0
