"""``aiagent wiki [PATH]``: a documentation wiki built from the code (no key needed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from aiagent.cli.errors import EXIT_USAGE

if TYPE_CHECKING:
    from aiagent.wiki.testrun import TestOptions


@click.command()
@click.argument("path", required=False, default=".", type=click.Path(path_type=Path))
@click.option("--output", "-o", "output", type=click.Path(path_type=Path), default=None,
              help="Folder to write the wiki to (default: PATH/docs/wiki).")
@click.option("--format", "fmt", type=click.Choice(["markdown", "mkdocs", "hugo", "docusaurus"]),
              default="markdown", show_default=True,
              help="Plain Markdown pages, or an MkDocs, Hugo or Docusaurus project.")
@click.option("--diagrams", type=click.Choice(["mermaid", "dot"]), default="mermaid", show_default=True,
              help="Diagram format.")
@click.option("--full", is_flag=True, help="Regenerate everything (ignore the manifest).")
@click.option("--no-security", is_flag=True, help="Leave out the security chapter (no audit).")
@click.option("--test-report", is_flag=True,
              help="Run the project's tests (pytest, go test, cargo test, npm test, swift test) and "
                   "write testing/test-execution.md. Runs project code: a trusted folder only.")
@click.option("--test-timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              metavar="SECONDS", help="Stop the test run after this long.")
@click.option("--trust", is_flag=True, help="Trust this folder for this run (its tests may run).")
def wiki(path: Path, output: Path | None, fmt: str, diagrams: str, full: bool, no_security: bool,
         test_report: bool, test_timeout: float, trust: bool) -> int:
    """Generate a wiki of the project at PATH: modules, APIs, diagrams, tests, security."""
    import os

    from aiagent.wiki.errors import WikiError
    from aiagent.wiki.pipeline import WikiRequest, generate
    from aiagent.wiki.progress import Progress, wants_live

    stderr = click.get_text_stream("stderr")
    say = Progress(stderr, wants_live(stderr, os.environ))
    if not path.is_dir():
        problem = "not a folder" if path.exists() else "no such folder"
        click.echo(f"aiagent: error: {path}: {problem}", err=True)
        return EXIT_USAGE
    error = ""
    try:
        tests = _test_options(path, test_timeout, trust or _root_trust()) if test_report else None
        req = WikiRequest(path, output if output is not None else path / "docs" / "wiki", fmt, full,
                          diagrams, not no_security, tests=tests)
        generate(req, say)
    except WikiError as exc:
        error = str(exc)
    finally:
        say.close()  # the live status line goes before any error line
    if error:
        click.echo(f"aiagent: error: {error}", err=True)
        return EXIT_USAGE
    return 0


def _root_trust() -> bool:
    """``aiagent --trust wiki …``: the top-level flag counts too."""
    root = click.get_current_context().find_root()
    return bool(root.params.get("trust"))


def _test_options(path: Path, timeout: float, trust: bool) -> TestOptions:
    """The options of a test run, or a WikiError when the folder is not trusted."""
    from aiagent.config.settings import ConfigError, Settings
    from aiagent.wiki.errors import WikiError
    from aiagent.wiki.testrun import TestOptions

    flags = {"security": {"trust_workspace": True}} if trust else None
    try:
        settings = Settings.load(path.resolve(), flags)
    except ConfigError as exc:
        raise WikiError(str(exc)) from None
    if settings.trust is None or not settings.trust.trusted:
        raise WikiError(f"{path.resolve()}: --test-report runs the project's own code, and this folder "
                        "is not trusted (trust it with `aiagent trust`, or add --trust for this run)")
    return TestOptions(timeout, dict(settings.get("sandbox") or {}))
