"""``aiagent batch JOB --repos FILE --out DIR``: a job over many repositories (docs/batch.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

JOB_NAMES = ["security-audit", "wiki", "code-review", "log-analysis"]

EPILOG = """\b
The repositories file lists one repository a line: a local folder (used in
place) or a git URL (cloned shallow), then ref=BRANCH_OR_TAG, range=A..B
(code-review) or files=a.log,b.log (log-analysis). Results go to
DIR/repos/<name>/, with DIR/summary.md and DIR/summary.json; DIR/state.sqlite
lets a re-run skip what is done (--force runs everything again).

\b
--llm uses the model where the job can; --llm-concurrency, --llm-rate and
--max-cost bound the model calls of the whole batch, across all workers.

\b
Exit codes:
  0  every task done
  1  some task failed (summary.md lists each with its reason)
  2  usage error, bad repositories file, or the engine cannot start
  3  --llm and no model is available"""


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
@click.option("--llm", is_flag=True, help="Use the model where the job can: wiki passes, the "
              "code-review agent, security-audit's LLM phase (log-analysis stays static).")
@click.option("--llm-concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              metavar="N", help="Model calls in flight at once, across all workers.")
@click.option("--llm-rate", type=click.FloatRange(min=0), default=0, metavar="PER_MINUTE",
              help="Model calls started a minute, across all workers (0: no pace).")
@click.option("--max-cost", type=click.FloatRange(min=0), metavar="USD",
              help="Start no model call once the batch has spent this much (by the price table).")
@click.option("--provider", type=click.Choice(["anthropic", "openai", "ollama"]),
              help="Model provider for --llm.")
@click.option("--model", "model_name", help="Model for --llm.")
def batch(job: str, repos: Path, out: Path, engine: str, ray_address: str | None, workers: int,
          task_timeout: float, task_memory: int, work: Path | None, force: bool, llm: bool,
          llm_concurrency: int, llm_rate: float, max_cost: float | None, provider: str | None,
          model_name: str | None) -> None:
    """Run JOB (security-audit, wiki, code-review, log-analysis) over many repositories."""
    from aiagent.app.batch import BatchError, BatchRequest, Limits, LlmLimits, run_batch
    from aiagent.frontends.cli.batch_progress import BatchProgress
    from aiagent.frontends.cli.errors import EXIT_GATE, EXIT_USAGE

    if ray_address and engine != "ray":
        raise click.UsageError("--ray-address needs --engine ray")
    if not llm and (max_cost is not None or llm_rate or provider or model_name):
        raise click.UsageError("--max-cost, --llm-rate, --provider and --model need --llm")
    model = _model(provider, model_name, LlmLimits(llm_concurrency, llm_rate, max_cost)) if llm else None
    request = BatchRequest(job, repos, out, engine, ray_address, workers,
                           Limits(task_timeout, task_memory), force, work, model)
    try:
        summary = run_batch(request, BatchProgress)
    except BatchError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(f"batch {job}: {summary['done']} done, {summary['failed']} failed, "
               f"{summary['skipped_as_done_before']} skipped as done before; "
               f"summary: {out / 'summary.md'}")
    sys.exit(EXIT_GATE if summary["failed"] else 0)


def _model(provider: str | None, model: str | None, limits: Any) -> Any:
    """The batch's model, resolved once here (``Application.resolve()``, the folder's settings
    and the command line), the same for every repository: none is one line and exit 3."""
    from aiagent.app import Application
    from aiagent.app.batch import BatchModel
    from aiagent.contracts.providers import AuthError
    from aiagent.frontends.cli.errors import EXIT_PROVIDER
    from aiagent.frontends.cli.settings_load import load_settings
    from aiagent.infra.config.pricing import price_of

    settings = load_settings(None, {"provider": provider, "model": model})
    try:
        choice = Application(settings, interactive=False).resolve()
    except AuthError as exc:
        click.echo(f"aiagent: error: --llm needs a model: {exc}", err=True)
        sys.exit(EXIT_PROVIDER)
    if choice.note:
        click.echo(f"aiagent: {choice.note}", err=True)
    if limits.max_cost is not None and price_of(choice.model) is None:
        raise click.UsageError(f"--max-cost: no price is known for {choice.model}, so its cost "
                               "cannot be counted (see infra/config/pricing.toml)")
    return BatchModel(choice.name, choice.model, limits)
