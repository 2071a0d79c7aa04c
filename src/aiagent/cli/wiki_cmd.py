"""``aiagent wiki [PATH]``: a documentation wiki built from the code (no key needed)."""

from __future__ import annotations

from pathlib import Path

import click

from aiagent.cli.errors import EXIT_USAGE


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
def wiki(path: Path, output: Path | None, fmt: str, diagrams: str, full: bool, no_security: bool) -> int:
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
    req = WikiRequest(path, output if output is not None else path / "docs" / "wiki", fmt, full,
                      diagrams, not no_security)
    error = ""
    try:
        generate(req, say)
    except WikiError as exc:
        error = str(exc)
    finally:
        say.close()  # the live status line goes before any error line
    if error:
        click.echo(f"aiagent: error: {error}", err=True)
        return EXIT_USAGE
    return 0
