"""Exit codes and the one error format of the ``aiagent`` command.

Every failure reaches the user as one line on stderr, ``aiagent: error: …``, and one of
the documented exit codes. An exception nobody expected is an internal error (exit 5);
``--debug`` (or ``AIAGENT_DEBUG=1``) prints its traceback too, and the tracebacks of the
errors the agent loop catches and reports as a line (a failing run, tool or hook), which
it logs at DEBUG (see :func:`show_debug_log`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

EXIT_OK = 0
EXIT_GATE = 1  # findings or review over the threshold
EXIT_USAGE = 2  # usage, configuration or environment (a damaged database, an unwritable folder)
EXIT_PROVIDER = 3  # key missing or rejected, unknown model, retries exhausted
EXIT_LIMIT = 4  # turn limit or timeout
EXIT_INTERNAL = 5  # an unexpected exception
EXIT_INVALID_REQUEST = 6  # the provider rejected the request as invalid
EXIT_INTERRUPTED = 130

DEBUG_FLAG = "--debug"


def debug_wanted(args: list[str], env: Mapping[str, str]) -> bool:
    return DEBUG_FLAG in _options(args) or env.get("AIAGENT_DEBUG", "").lower() in ("1", "true", "yes")


def without_debug(args: list[str]) -> list[str]:
    """``args`` without ``--debug``, so it works before or after a sub-command."""
    options = _options(args)
    return [a for i, a in enumerate(args) if not (a == DEBUG_FLAG and i < len(options))]


def _options(args: list[str]) -> list[str]:
    """The arguments before ``--`` (after it, ``--debug`` is a value, not our flag)."""
    return args[: args.index("--")] if "--" in args else args


def guarded(run: Callable[[], int | None], debug: bool) -> int:
    """Run the command; turn whatever escapes it into one line and an exit code.

    click is looked up, not imported: the bare ``aiagent`` path to the UI never loads it.
    """
    try:
        code = run()
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or EXIT_OK
        return _say(str(exc.code))
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM before a run (exit code 143)
        return _interrupted(getattr(exc, "exit_code", EXIT_INTERRUPTED))
    except Exception as exc:  # noqa: BLE001 - the one place that turns every error into a line
        click = sys.modules.get("click")
        if click is not None and isinstance(exc, click.exceptions.Exit):
            return int(exc.exit_code)
        if click is not None and isinstance(exc, click.ClickException):
            return _click_error(exc)
        if click is not None and isinstance(exc, click.exceptions.Abort):
            return _interrupted()
        return _unexpected(exc, debug)
    return code if isinstance(code, int) else EXIT_OK


def _interrupted(code: int = EXIT_INTERRUPTED) -> int:
    sys.stderr.write("\naiagent: interrupted\n")
    return code


def _click_error(exc: Any) -> int:
    import click

    message = exc.format_message()
    if isinstance(exc, click.UsageError):
        path = exc.ctx.command_path if exc.ctx is not None else "aiagent"
        message += f" (see '{path} --help')"
    _say(message)
    # click uses 1 for a file it cannot open; 1 means "gate failed" here, so it is a usage error
    return EXIT_USAGE if exc.exit_code in (1, 2) else exc.exit_code


def _unexpected(exc: Exception, debug: bool) -> int:
    code = getattr(exc, "exit_code", None)
    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(code, int) and code != EXIT_GATE:  # our own errors carry their exit code
        _say(str(exc))
        return code
    first = (str(exc).strip().splitlines() or [""])[0]
    detail = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    hint = "" if debug else " (run with --debug for the traceback)"
    _say(f"internal error: {detail}{hint}")
    return EXIT_INTERNAL


def _say(message: str) -> int:
    from aiagent.frontends.terminal_text import neutralise

    line = neutralise(" ".join(message.split()))
    sys.stderr.write(f"aiagent: error: {line}\n")
    sys.stderr.flush()
    return EXIT_USAGE


def env_debug(args: list[str]) -> tuple[list[str], bool]:
    """(args without ``--debug``, whether to show tracebacks); with ``--debug`` the
    ``aiagent`` loggers' DEBUG records (tracebacks included) go to stderr."""
    debug = debug_wanted(args, os.environ)
    if debug:
        show_debug_log()
    return without_debug(args), debug


def show_debug_log() -> None:
    import logging

    class Format(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            text = super().format(record)  # the message, and its traceback if any
            return f"aiagent: debug: {record.name}: {text}" if record.levelno <= logging.DEBUG else text

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(Format("%(message)s"))
    logger = logging.getLogger("aiagent")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
