"""``aiagent --headless --mode=log-analysis``: a log on stdin or ``--file`` (gzip too) →
the static report, plus the model's incident report when a provider is available.

Exit codes: 0 done; 1 the incident severity reached ``--fail-on``; 2 a bad input or
flag; 3 no valid report from the model (provider failed, or its answer never matched
the schema after the re-asks: the static report is still written); 4 timeout.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from aiagent.app import Application
from aiagent.contracts.providers import AuthError, ProviderError
from aiagent.engines.logs.incident import IncidentError, explain
from aiagent.engines.logs.parse import Mined, decoded, decoded_blocks
from aiagent.engines.logs.render import MODEL_WOULD_ADD, document, markdown
from aiagent.engines.logs.source import LogInputError, open_log
from aiagent.engines.logs.static import analyse
from aiagent.engines.logs.timeparse import iso
from aiagent.frontends.cli.errors import EXIT_GATE, EXIT_LIMIT, EXIT_OK, EXIT_PROVIDER, EXIT_USAGE
from aiagent.infra.config.flags import flags_layer
from aiagent.infra.config.settings import ConfigError, Settings

OUTPUTS = ("text", "json", "markdown")
SEVERITIES = ("info", "low", "medium", "high", "critical")
RE_ASKS = 2  # after the first answer


def fail(message: str, code: int = EXIT_USAGE) -> int:
    click.echo(f"aiagent: error: {message}", err=True)
    return code


def run_log_analysis(options: dict[str, Any]) -> int:
    cwd = Path(options.get("cwd") or os.getcwd())
    output, fail_on = options.get("output") or "text", options.get("fail_on")
    if output not in OUTPUTS:
        return fail(f"--output {output}: log analysis writes json or markdown (text is markdown)")
    if fail_on is not None and fail_on not in SEVERITIES:
        return fail(f"--fail-on {fail_on}: log analysis gates on one of {', '.join(SEVERITIES)}")

    try:
        settings = Settings.load(cwd, flags_layer(options))
    except ConfigError as exc:
        return fail(str(exc), exc.exit_code)

    try:
        static = _static(options, cwd)
    except LogInputError as exc:
        return fail(str(exc))
    doc, code = _with_model(settings, static, options.get("prompt"))

    text = json.dumps(doc, indent=2) + "\n" if output == "json" else markdown(doc)
    sys.stdout.write(text)
    sys.stdout.flush()
    if code:
        return code
    if fail_on and SEVERITIES.index(doc["severity"]) >= SEVERITIES.index(fail_on):
        click.echo(f"aiagent: incident severity {doc['severity']} reaches --fail-on {fail_on}",
                   err=True)
        return EXIT_GATE
    return EXIT_OK


def _static(options: dict[str, Any], cwd: Path) -> dict[str, Any]:

    path = None
    if options.get("prompt_file"):
        path = Path(options["prompt_file"])
        path = path if path.is_absolute() else cwd / path
    elif _stdin_is_terminal():
        raise LogInputError("no log: pipe a log on stdin or give --file PATH")
    source = open_log(path, sys.stdin.buffer)
    progress = Progress(source.total) if _stderr_is_terminal() else None
    try:
        return analyse(source, progress)
    finally:
        source.close()
        if progress is not None:
            progress.done()


def _with_model(settings: Any, static: dict[str, Any],
                question: str | None) -> tuple[dict[str, Any], int]:
    """The document with the model's report when a provider is there, and an exit code."""

    app = Application(settings, interactive=False)
    try:
        note = app.resolve().note
    except AuthError as exc:
        line = f"static report only ({exc}); {MODEL_WOULD_ADD}"
        click.echo(f"aiagent: {line}", err=True)
        return document(static, None, model_note=line), EXIT_OK
    if note:
        click.echo(f"aiagent: {note}", err=True)
    import asyncio  # (only with a model: start-up)

    try:
        incident = asyncio.run(_explain(app, static, question))
    except (ProviderError, IncidentError) as exc:
        attempts = getattr(exc, "attempts", 0)
        click.echo(f"aiagent: error: model: {exc}", err=True)
        return document(static, None, model_error=str(exc), attempts=attempts), EXIT_PROVIDER
    except TimeoutError:
        message = "time limit reached while waiting for the model (raise it with --timeout)"
        click.echo(f"aiagent: error: {message}", err=True)
        return document(static, None, model_error=message), EXIT_LIMIT
    for check in incident.notes:
        click.echo(f"aiagent: note: {check}", err=True)
    return document(static, incident), EXIT_OK


async def _explain(app: Any, static: dict[str, Any], question: str | None) -> Any:
    import asyncio

    settings = app.settings
    llm = app.one_shot(max_tokens=4096)

    async def complete(system: str, prompt: str) -> str:
        text: str = await llm(prompt, {"system": system})
        return text

    limit = settings.agent.timeout or None
    try:
        return await asyncio.wait_for(
            explain(static, complete, attempts=1 + RE_ASKS, question=question), limit)
    finally:
        await llm.aclose()


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """``aiagent: reading the log: 120 MB, 1.2M lines, 45 MB/s`` on a terminal, a few
    times a second, erased when done."""

    def __init__(self, total: int | None) -> None:
        self.total, self.started, self.shown = total, time.monotonic(), 0.0

    def __call__(self, done: int, lines: int) -> None:
        now = time.monotonic()
        if now - self.shown < 0.25:
            return
        self.shown = now
        rate = done / max(now - self.started, 1e-6) / 1e6
        share = f" ({done * 100 // self.total}%)" if self.total else ""
        sys.stderr.write(f"\raiagent: reading the log: {done / 1e6:.0f} MB{share}, "
                         f"{lines:,} lines, {rate:.0f} MB/s\x1b[K")
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


# ---- aiagent logs parse | templates ---------------------------------------------------

@click.group()
def logs() -> None:
    """Parse logs into templates (no model, no key): per line, or as a template table."""


@logs.command("parse")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl",
              show_default=True, help="One JSON object per line, or CSV with a header row.")
def parse_cmd(file: Path, fmt: str) -> None:
    """Write a row per line of FILE (gzip too): line, template_id, template, level,
    timestamp and the header's fields."""

    mined = _mine(file)
    columns = mined.parser.headers.format.columns if mined.parser.headers.format else ()
    source = _open(file)
    try:
        _write_rows(mined.rows(decoded(source.stream)), fmt, columns)
    finally:
        source.close()


@logs.command("templates")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", "fmt", type=click.Choice(["text", "jsonl", "csv"]),
              default="text", show_default=True)
def templates_cmd(file: Path, fmt: str) -> None:
    """The templates of FILE, most frequent first: count, level, first and last seen
    (times from the header when it has them, else line numbers)."""

    mined = _mine(file)
    table = []
    for s in sorted(mined.stats.values(), key=lambda s: (-s.count, s.first_line)):
        first = iso(s.first_at) if s.first_at is not None else f"line {s.first_line}"
        last = iso(s.last_at) if s.last_at is not None else f"line {s.last_line}"
        table.append({"template_id": s.template_id, "count": s.count, "level": s.level,
                      "first_seen": first, "last_seen": last,
                      "template": mined.miner.template(s.template_id) or ""})
    if fmt == "text":
        for row in table:
            click.echo(f"{row['template_id']:>6} {row['count']:>8} {row['level']:<8} "
                       f"{row['first_seen']:<24} {row['template']}")
        return
    _write(table, fmt, list(table[0]) if table else [])


def _open(file: Path) -> Any:

    try:
        return open_log(file, sys.stdin.buffer)
    except LogInputError as exc:
        click.echo(f"aiagent: error: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None


def _mine(file: Path) -> Any:

    source, mined = _open(file), Mined()
    try:
        mined.feed_blocks(decoded_blocks(source.stream))
    except UnicodeError as exc:  # pragma: no cover - decoding replaces bad bytes
        click.echo(f"aiagent: error: {file}: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None
    finally:
        source.close()
    return mined


def _write_rows(rows: Any, fmt: str, columns: tuple[str, ...]) -> None:

    def records() -> Any:
        for row in rows:
            yield {"line": row.line, "template_id": row.template_id, "template": row.template,
                   "level": row.level, "timestamp": iso(row.timestamp),
                   **{name: row.fields.get(name) for name in columns if name != "level"}}

    names = ["line", "template_id", "template", "level", "timestamp",
             *[c for c in columns if c != "level"]]
    _write(records(), fmt, names)


def _write(records: Any, fmt: str, names: list[str]) -> None:
    import csv

    out = sys.stdout
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
        writer.writeheader()
        for record in records:
            writer.writerow({k: ("" if v is None else v) for k, v in record.items()})
    else:
        for record in records:
            if record.get("timestamp", "") is None:
                del record["timestamp"]
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    out.flush()
