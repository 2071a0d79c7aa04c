"""``aiagent wiki [PATH]``: a documentation wiki built from the code (no key needed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from aiagent.app import Application
from aiagent.contracts.providers import ProviderError
from aiagent.engines.wiki.check import CheckReport, text_report
from aiagent.engines.wiki.errors import WikiError
from aiagent.engines.wiki.pipeline import WikiRequest, generate
from aiagent.engines.wiki.progress import Progress, wants_live
from aiagent.engines.wiki.render import check_mermaid_js
from aiagent.engines.wiki.skillpages import active_skill_wikis
from aiagent.engines.wiki.testrun import TestOptions
from aiagent.frontends.cli.errors import EXIT_GATE, EXIT_USAGE
from aiagent.frontends.cli.settings_load import settings_flags
from aiagent.frontends.cli.wiki_model import ModelRequest, make_analyst, model_options
from aiagent.infra.config.model import as_table
from aiagent.infra.config.settings import ConfigError, Settings

if TYPE_CHECKING:
    from aiagent.engines.wiki.skillpages import SkillWiki
    from aiagent.engines.wiki.testrun import TestOptions
    from aiagent.infra.config.settings import Settings


@click.command()
@click.argument("path", required=False, default=".", type=click.Path(path_type=Path))
@click.option("--output", "-o", "output", type=click.Path(path_type=Path), default=None,
              help="Folder to write the wiki to (default: PATH/docs/wiki).")
@click.option("--format", "fmt", type=click.Choice(["markdown", "mkdocs", "hugo", "docusaurus"]),
              default="markdown", show_default=True,
              help="Plain Markdown pages, or an MkDocs, Hugo or Docusaurus project.")
@click.option("--diagrams", type=click.Choice(["mermaid", "dot", "d2"]), default="mermaid", show_default=True,
              help="Diagram format.")
@click.option("--mermaid-js", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="A local mermaid.min.js for the mkdocs and Hugo sites to carry, so their "
                   "diagrams draw offline (default: [wiki] mermaid_js, else Mermaid 11 from "
                   "jsDelivr when a page is viewed).")
@click.option("--full", is_flag=True, help="Regenerate everything (ignore the manifest).")
@click.option("--no-security", is_flag=True, help="Leave out the security chapter (no audit).")
@click.option("--test-report", is_flag=True,
              help="Run the project's tests (pytest, go test, cargo test, npm test, swift test) and "
                   "write testing/test-execution.md. Runs project code: a trusted folder only.")
@click.option("--test-timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              metavar="SECONDS", help="Stop the test run after this long.")
@click.option("--trust", is_flag=True, help="Trust this folder for this run (its tests may run).")
@click.option("--skills", "skills", multiple=True, metavar="NAME[,NAME]",
              help="Skills whose wiki sections to add under skill-contributed/ (besides those "
                   "the project's files trigger).")
@click.option("--check", is_flag=True,
              help="After writing, print a quality report (public symbols listed, dead links, diagram "
                   "parse and size, truth checks) and exit 1 when its score is under the minimum.")
@click.option("--check-min", type=click.FloatRange(0, 100), default=None, metavar="SCORE",
              help="The minimum score for --check (default: [wiki] check_min, else 80).")
@click.option("--json", "as_json", is_flag=True, help="With --check: the report as JSON on stdout.")
@model_options
def wiki(path: Path, output: Path | None, fmt: str, diagrams: str, mermaid_js: Path | None, full: bool, no_security: bool,
         test_report: bool, test_timeout: float, trust: bool, skills: tuple[str, ...],
         check: bool, check_min: float | None, as_json: bool, model: ModelRequest) -> int:
    """Generate a wiki of the project at PATH: modules, APIs, diagrams, tests, security."""
    import os
    import sys

    stderr = sys.stderr  # click.get_text_stream: deprecated in Click 8.5, gone in 9
    say = Progress(stderr, wants_live(stderr, os.environ))
    if not path.is_dir():
        problem = "not a folder" if path.exists() else "no such folder"
        click.echo(f"aiagent: error: {path}: {problem}", err=True)
        return EXIT_USAGE

    error, code, summary = "", EXIT_USAGE, None
    try:
        settings = _settings(path, trust or _root_trust())
        minimum = _check_min(settings, check_min) if check or check_min is not None or as_json else None
        tests = _test_options(settings, path, test_timeout) if test_report else None
        mermaid_js = _mermaid_js(settings, path, mermaid_js)
        analyst = make_analyst(model, path, say)
        req = WikiRequest(path, output if output is not None else path / "docs" / "wiki", fmt, full,
                          diagrams, not no_security, analyst, tests=tests,
                          skills=_skills(settings, path, skills), mermaid_js=mermaid_js,
                          settings=settings, check_min=minimum,
                          skill_runtime=Application(settings, interactive=False).skill_runtime)
        summary = generate(req, say)
    except (WikiError, ConfigError) as exc:
        error, code = str(exc), int(getattr(exc, "exit_code", EXIT_USAGE))
    except ProviderError as exc:
        error, code = f"model: {exc} (no wiki was written)", exc.exit_code
    finally:
        say.close()  # the live status line goes before any error line
    if error:
        click.echo(f"aiagent: error: {error}", err=True)
        return code
    return _report(summary.check, as_json) if summary is not None and summary.check is not None else 0


def _check_min(settings: Settings, given: float | None) -> float:
    if given is not None:
        return given
    return settings.wiki.check_min  # validated at load (schema.json)


def _report(report: object, as_json: bool) -> int:
    import json


    assert isinstance(report, CheckReport)
    click.echo(json.dumps(report.as_dict(), indent=2) if as_json else text_report(report))
    return 0 if report.passed else EXIT_GATE


def _mermaid_js(settings: Settings, path: Path, given: Path | None) -> Path | None:
    """``--mermaid-js``, else ``[wiki] mermaid_js`` (``~`` expanded; relative: to PATH)."""
    configured = settings.wiki.mermaid_js.strip()
    found = given if given is not None else path / Path(configured).expanduser() if configured else None
    if found is not None:
        check_mermaid_js(found)  # before the analysis: a wrong file stops the run at once
    return found


def _root_trust() -> bool:
    """``aiagent --trust wiki …``: the top-level flag counts too."""
    root = click.get_current_context().find_root()
    return bool(root.params.get("trust"))


def _settings(path: Path, trust: bool) -> Settings:

    try:
        return Settings.load(path.resolve(), settings_flags({"trust": trust}))
    except ConfigError as exc:
        raise WikiError(str(exc)) from None


def _skills(settings: Settings, path: Path, names: tuple[str, ...]) -> tuple[SkillWiki, ...]:

    requested = tuple(n.strip() for item in names for n in item.split(",") if n.strip())
    return tuple(active_skill_wikis(settings, path.resolve(), requested))


def _test_options(settings: Settings, path: Path, timeout: float) -> TestOptions:
    """The options of a test run, or a WikiError when the folder is not trusted."""

    if settings.trust is None or not settings.trust.trusted:
        raise WikiError(f"{path.resolve()}: --test-report runs the project's own code, and this folder "
                        "is not trusted (trust it with `aiagent trust`, or add --trust for this run)")

    return TestOptions(timeout, as_table(settings.sandbox))
