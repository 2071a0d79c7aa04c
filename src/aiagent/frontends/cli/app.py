"""The ``aiagent`` click group and its top-level options; sub-commands load lazily.

Without a sub-command, ``aiagent`` runs the agent: headless when ``--headless`` is given,
when a prompt comes from ``--prompt``/``--file``, or when stdin is piped.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from aiagent import __version__
from aiagent.frontends.cli import SUBCOMMANDS

EXIT_CODES_HELP = """\b
Exit codes:
  0    done
  1    gate failed (security-audit or code-review findings over the
       threshold: --fail-on, --max-findings; log-analysis incident
       severity at --fail-on)
  2    usage, configuration or environment error (bad flag or setting,
       damaged database, unwritable folder)
  3    provider unavailable (key missing or rejected, unknown model,
       retries exhausted)
  4    turn limit, timeout or budget (--max-cost, --max-tokens) reached
  5    internal error (run with --debug for the traceback)
  6    the provider rejected the request as invalid
  130  interrupted (Ctrl-C)
  141  -o stream-json: stdout was closed
  143  stopped by SIGTERM
"""


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = SUBCOMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, _, attr = entry[0].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("aiagent."):
                return None  # that part is not installed in this build
            raise
        command: click.Command = getattr(module, attr)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """An unknown command is a usage error that names the closest one (``tool`` ->
        ``tools``)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            from difflib import get_close_matches

            close = get_close_matches(name, list(SUBCOMMANDS), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"no such command {name!r}{hint}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in sorted(SUBCOMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    epilog=EXIT_CODES_HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "-V", "--version", prog_name="aiagent")
@click.option("--debug", is_flag=True, help="Show the traceback of an error (or set AIAGENT_DEBUG=1).")
@click.option("--headless", is_flag=True, help="Run without the interactive UI (for CI).")
@click.option("-p", "--prompt", help="The task. Piped stdin is appended to it.")
@click.option(
    "-f", "--file", "prompt_file", type=click.Path(dir_okay=False), help="Read the task from a file."
)
@click.option(
    "-i", "--image", "images", multiple=True, metavar="FILE",
    help="Attach an image (PNG, JPEG, GIF, WebP) to the prompt. Repeatable.",
)
@click.option("-m", "--model", help="Model name (overrides config and AIAGENT_MODEL).")
@click.option("--provider", type=click.Choice(["anthropic", "openai", "ollama"]))
@click.option("--max-turns", type=click.IntRange(min=1), help="Most model responses in one run.")
@click.option("--timeout", help="Limit for the whole run, e.g. 300, 120s, 5m.")
@click.option("--tools", "tools_csv", help="Comma-separated whitelist of tools (or groups).")
@click.option(
    "-c", "--continue", "continue_session", is_flag=True,
    help="Continue the latest session started in this folder.",
)
@click.option(
    "-r", "--resume", is_flag=False, flag_value="?", default=None, metavar="[ID]",
    help="Resume a saved session (no ID: list the recent ones).",
)
@click.option(
    "--approval-mode", type=click.Choice(["read-only", "prompt", "auto-edit", "full-auto"]),
    help="What may run without asking (default from [agent] approval_mode).",
)
@click.option(
    "--approve", multiple=True, metavar="TOOL[:PREFIX]",
    help="Pre-approve a tool, a command prefix (shell:npm test) or a path (write:src/). Repeatable.",
)
@click.option(
    "--skills", "skills_csv", metavar="NAMES",
    help="Comma-separated skills (names or folders) to activate for this run.",
)
@click.option(
    "--approve-skills", "approve_skills", metavar="NAMES",
    help="Comma-separated skills whose declared permissions are granted for this run.",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json", "markdown", "stream-json", "sarif", "github", "gitlab"]),
    default="text",
    show_default=True,
    help="Output format; stream-json: one JSON object a line as things happen; "
         "sarif, github and gitlab are for --mode code-review.",
)
@click.option("--input-format", type=click.Choice(["text", "stream-json"]), default="text",
              show_default=True,
              help="stream-json: user messages as JSON lines on stdin, one turn each (needs -o stream-json).")
@click.option("--include-partial-messages", is_flag=True,
              help="-o stream-json: also the text as it streams (stream_event lines).")
@click.option("--max-cost", metavar="USD", help="Stop before the run would spend more (estimated).")
@click.option("--max-tokens", metavar="N", help="Stop before the run would use more tokens.")
@click.option(
    "--mode", type=click.Choice(["chat", "code-review", "log-analysis"]), default="chat",
    show_default=True,
    help="What a headless run does: a prompt, a code review, a log analysis (a log on stdin or --file).",
)
@click.option("--diff", "diff", metavar="RANGE",
              help="code-review: review A..B, A...B (from the merge base) or A (A..HEAD).")
@click.option("--staged", is_flag=True, help="code-review: review the staged changes.")
@click.option("--base", metavar="BRANCH",
              help="code-review: review HEAD against its merge base with BRANCH.")
@click.option(
    "--fail-on", type=click.Choice(["critical", "high", "medium", "low", "info"],
                                   case_sensitive=False),
    help="code-review/log-analysis: exit 1 when a finding (incident) is this severe or worse.",
)
@click.option("--max-findings", type=click.IntRange(min=0), metavar="N",
              help="code-review: exit 1 when there are more than N findings.")
@click.option("--dry-run", is_flag=True,
              help="code-review with -o github/gitlab: print the payload, post nothing.")
@click.option("--save", multiple=True, metavar="FORMAT=PATH",
              help="code-review: also write the report to PATH (json, markdown, sarif, counts, codequality). Repeatable.")
@click.option(
    "--cwd", type=click.Path(file_okay=False), help="Work in this folder instead of the current one."
)
@click.option("--trust", is_flag=True, help="Trust this folder for this run (its skills and config).")
@click.pass_context
def cli(ctx: click.Context, /, **options: Any) -> None:
    """aiagent: an AI coding agent for the terminal and for CI."""
    if ctx.invoked_subcommand is not None:
        return
    from aiagent.frontends.cli.run import run_mode

    ctx.exit(run_mode(options))

