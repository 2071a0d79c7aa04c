"""``aiagent batch JOB --repos FILE --out DIR``: a job over many repositories (docs/batch.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

JOB_NAMES = ["security-audit", "wiki", "code-review", "log-analysis"]

EPILOG = """\b
The repositories file lists one repository a line: a local folder (used in
place) or a git URL (cloned shallow), then ref=BRANCH_OR_TAG, range=A..B
(code-review) or files=a.log,b.log (log-analysis). Results go to
DIR/repos/<name>/, with DIR/summary.md and DIR/summary.json; DIR/state.sqlite
lets a re-run skip what is done (--force runs everything again).

\b
Exit codes:
  0  every task done
  1  some task failed (summary.md lists each with its reason)
  2  usage error, bad repositories file, or the engine cannot start"""


@click.command("batch", epilog=EPILOG)
@click.argument("job", type=click.Choice(JOB_NAMES))
@click.option("--repos", "repos", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="File of repositories, one a line.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the results, the summary and the state file.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: worker processes on this machine; ray: Ray tasks (pip install 'aiagent[ray]').")
@click.option("--ray-address", metavar="ADDRESS",
              help="An existing Ray cluster (default: start a local one).")
@click.option("--workers", "-j", type=click.IntRange(min=0), default=0,
              help="Tasks at a time (0 = one per core).")
@click.option("--task-timeout", type=click.FloatRange(min=0), default=1800, show_default=True,
              metavar="SECONDS", help="Kill a task after this long (0: no limit).")
@click.option("--task-memory", type=click.IntRange(min=0), default=4096, show_default=True,
              metavar="MB", help="Kill a task whose processes use more memory (RSS) than this (0: no limit).")
@click.option("--work", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the clones (default: DIR/.work; each is removed after its task).")
@click.option("--force", is_flag=True, help="Run every task again, even those done before.")
def batch(job: str, repos: Path, out: Path, engine: str, ray_address: str | None, workers: int,
          task_timeout: float, task_memory: int, work: Path | None, force: bool) -> None:
    """Run JOB (security-audit, wiki, code-review, log-analysis) over many repositories."""
    from aiagent.app.batch import BatchError, BatchRequest, Limits, run_batch
    from aiagent.app.batch.progress import BatchProgress
    from aiagent.frontends.cli.errors import EXIT_GATE, EXIT_USAGE

    if ray_address and engine != "ray":
        raise click.UsageError("--ray-address needs --engine ray")
    request = BatchRequest(job, repos, out, engine, ray_address, workers,
                           Limits(task_timeout, task_memory), force, work)
    try:
        summary = run_batch(request, BatchProgress)
    except BatchError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(f"batch {job}: {summary['done']} done, {summary['failed']} failed, "
               f"{summary['skipped_as_done_before']} skipped as done before; "
               f"summary: {out / 'summary.md'}")
    sys.exit(EXIT_GATE if summary["failed"] else 0)
