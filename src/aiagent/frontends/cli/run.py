"""``aiagent [--headless] --prompt …``: turn flags into settings, build the agent, run it."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aiagent.infra.config.settings import ConfigError, Settings

if TYPE_CHECKING:  # (the agent's modules load only for a run of the agent: start-up)
    from aiagent.contracts.messages import ImageBlock
    from aiagent.frontends.cli.piped import Piped

EXIT_USAGE = 2
STDIN_WAIT = 10.0  # seconds a silent pipe may keep a run that already has a prompt waiting


def fail(message: str, code: int = EXIT_USAGE) -> int:
    click.echo(f"aiagent: error: {message}", err=True)
    return code


def read_prompt(options: dict[str, Any], cwd: Path, inputs: Path) -> tuple[str, tuple[str, ...]]:
    """The task (``--prompt``, ``--file``, piped stdin), and the folders the tools may read
    besides the workspace: ``inputs``, when a large piped input was kept there (see
    :mod:`aiagent.frontends.cli.piped`)."""
    parts: list[str] = []
    if options.get("prompt"):
        parts.append(options["prompt"])
    if options.get("prompt_file"):
        path = Path(options["prompt_file"])
        path = path if path.is_absolute() else cwd / path
        try:
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            raise ConfigError(f"--file {path}: {exc.strerror}") from None
    if options.get("input_format") == "stream-json":  # stdin is the conversation itself
        return "\n\n".join(p.strip("\n") for p in parts if p.strip()), ()
    piped = _read_stdin(inputs, STDIN_WAIT if parts else None)
    if piped.notice():
        click.echo(f"aiagent: note: {piped.notice()}", err=True)
    text = piped.text.strip("\n")
    if text:
        parts.append(text if not parts else f"<stdin>\n{text}\n</stdin>")
    prompt = "\n\n".join(p.strip("\n") for p in parts if p.strip())
    return prompt, (str(inputs),) if piped.saved is not None else ()


def _read_stdin(inputs: Path, first_byte_wait: float | None = None) -> Piped:
    """Piped or redirected stdin (a FIFO or a file); never a terminal or /dev/null.

    With a prompt already given, a pipe that sends nothing for ``first_byte_wait``
    seconds is left alone (some CI runners leave stdin open and silent), so the run
    never hangs on it.
    """
    import select

    from aiagent.frontends.cli.piped import Piped, read_piped

    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):
        return Piped("")
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        return Piped("")
    if stat.S_ISFIFO(mode) and first_byte_wait is not None:
        ready, _, _ = select.select([fd], [], [], first_byte_wait)
        if not ready:
            click.echo(f"aiagent: stdin sent nothing for {first_byte_wait:g}s; going on "
                       "without it (redirect stdin from /dev/null to skip this wait)", err=True)
            return Piped("")
    try:
        return read_piped(sys.stdin.buffer, inputs)
    except OSError as exc:
        raise ConfigError(f"stdin: cannot keep the large input in {inputs}: {exc.strerror}") from None


def wants_interactive(options: dict[str, Any]) -> bool:
    """No task given and a person at the keyboard: open the interactive UI."""
    if options.get("headless") or options.get("prompt") or options.get("prompt_file"):
        return False
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


MODE_OUTPUTS = {
    "chat": ("text", "json", "markdown", "stream-json"),
    "code-review": ("text", "json", "markdown", "sarif", "github", "gitlab"),
    "log-analysis": ("text", "json", "markdown"),
}
MODE_OPTIONS = {  # option -> (its flag, the modes it belongs to)
    "diff": ("--diff", ("code-review",)),
    "staged": ("--staged", ("code-review",)),
    "base": ("--base", ("code-review",)),
    "dry_run": ("--dry-run", ("code-review",)),
    "max_findings": ("--max-findings", ("code-review",)),
    "save": ("--save", ("code-review",)),
    "fail_on": ("--fail-on", ("code-review", "log-analysis")),
}


def mode_error(options: dict[str, Any]) -> str:
    """Why these options do not fit the chosen ``--mode`` ("" when they do)."""
    mode = options.get("mode") or "chat"
    output = options.get("output") or "text"
    if output not in MODE_OUTPUTS[mode]:
        return f"--output {output} is not available with --mode {mode} " \
               f"(choose from: {', '.join(MODE_OUTPUTS[mode])})"
    if options.get("input_format") == "stream-json" and output != "stream-json":
        return "--input-format stream-json needs --output stream-json"
    if options.get("include_partial_messages") and output != "stream-json":
        return "--include-partial-messages needs --output stream-json"
    for key, (flag, modes) in MODE_OPTIONS.items():
        if options.get(key) not in (None, False, ()) and mode not in modes:
            return f"{flag} needs --mode {' or --mode '.join(modes)}"
    return ""


def run_mode(options: dict[str, Any]) -> int:
    """The run without a sub-command: a chat (prompt), a code review or a log analysis."""
    error = mode_error(options)
    if error:
        return fail(error)
    mode = options.get("mode") or "chat"
    if mode == "code-review":
        from aiagent.frontends.cli.review_cmd import run_review

        return run_review(options)
    if mode == "log-analysis":
        from aiagent.frontends.cli.logs_cmd import run_log_analysis

        return run_log_analysis(options)
    return run_agent(options)


def run_agent(options: dict[str, Any]) -> int:
    from aiagent.agent.core.images import ImageInputError
    from aiagent.agent.core.session import SessionRequest
    from aiagent.app import Application
    from aiagent.contracts.providers import AuthError
    from aiagent.frontends.headless import run_headless

    cwd = Path(options.get("cwd") or os.getcwd())
    if not cwd.is_dir():
        return fail(f"--cwd {cwd}: no such folder")
    if wants_interactive(options):
        if options.get("images"):
            return fail("--image needs a prompt (--prompt or --file); in the interactive UI, "
                        "paste the image's path into the prompt")
        from aiagent.frontends.tui import run_interactive

        return run_interactive(options, cwd)
    try:
        from aiagent.infra.config.flags import flags_layer
        from aiagent.infra.config.paths import data_dir

        settings = Settings.load(cwd, flags_layer(options))
        prompt, readable = read_prompt(options, cwd, data_dir(settings.env) / "inputs")
    except ConfigError as exc:
        return fail(str(exc), exc.exit_code)
    if not prompt and options.get("input_format") != "stream-json":
        return fail("no prompt: give --prompt \"…\", --file PATH, or pipe text on stdin")
    try:
        images = attached_images(options.get("images") or (), cwd)
    except ImageInputError as exc:
        return fail(f"--image {exc}", exc.exit_code)

    app = Application.from_settings(settings, options)
    try:
        choice = app.resolve()
    except AuthError as exc:
        return fail(str(exc), exc.exit_code)
    if choice.note:
        click.echo(f"aiagent: {choice.note}", err=True)

    if options.get("resume") == "?":
        from aiagent.frontends.cli.sessions_cmd import resume_hint

        return fail(resume_hint(settings))
    request = SessionRequest(bool(options.get("continue_session")), options.get("resume"))
    return run_headless(app, prompt, options.get("output") or "text", session=request,
                        readable=readable, images=images, stream=stream_options(options))


def stream_options(options: dict[str, Any]) -> dict[str, bool]:
    """What ``-o stream-json`` is asked for: messages on stdin, partial text."""
    return {"input": options.get("input_format") == "stream-json",
            "partial": bool(options.get("include_partial_messages"))}


def attached_images(paths: Any, cwd: Path) -> list[ImageBlock]:
    """The ``--image`` files, checked (see :mod:`aiagent.agent.core.images`)."""
    from aiagent.agent.core.images import check_count, load_image

    images = [load_image(path, cwd) for path in paths]
    check_count(images)
    return images
