"""The ``shell`` and ``shell_command`` tools (Codex CLI formats) and the job tools.

``shell`` takes an argv array and answers with Codex's JSON
``{"output": …, "metadata": {"exit_code": …, "duration_seconds": …}}``;
``shell_command`` takes a script for the user's shell and answers with
``Exit code:`` / ``Wall time:`` / ``Output:``. With ``[tools.shell] result = "minimal"``
both answer ``{"status", "exit_code", "timed_out", "canceled", "reason"}`` instead, while
the output still streams to the user as ``tool_output`` events.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.agent.tools.shell import snapshot
from aiagent.agent.tools.shell.env import command_env
from aiagent.agent.tools.shell.jobs import Job
from aiagent.agent.tools.shell.runtime import ShellRuntime, ShellSettings, runtime
from aiagent.agent.tools.shell.truncate import formatted_truncate, line_count, truncate_middle
from aiagent.agent.tools.tooldef import BuiltinTool, boolean, int_arg, number, schema, string
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.events import ToolOutputEvent
from aiagent.contracts.tools import READ, ToolContext, ToolEffect, ToolError, ToolResult
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, Outcome, Running, new_tag, spawn, spawn_detached
from aiagent.infra.sandbox import SandboxUnavailable, sandbox_argv, wrap_for_settings

TIMEOUT_EXIT_CODE = 124
CANCEL_EXIT_CODE = 130
WINDOWS = sys.platform == "win32"
_TRAILING_AMP = re.compile(r"(?<![&|>])&\s*$")


@dataclass(slots=True)
class CommandRun:
    """What one foreground command produced."""

    outcome: Outcome
    output: str  # combined stdout+stderr as kept (head+tail if it was huge)
    complete: bool  # False when the middle of the output was not kept in memory
    log_path: Path
    job: Job | None = None


def split_background(script: str) -> tuple[str, bool]:
    """``cmd &`` -> (``cmd``, True): a trailing ``&`` asks for a background job."""
    match = _TRAILING_AMP.search(script)
    if match and script[: match.start()].strip():
        return script[: match.start()].rstrip(), True
    return script, False


def shell_argv(settings: ShellSettings, script: str, login: bool | None) -> list[str]:
    use_login = settings.login if login is None else login
    return [settings.shell_path(), "-lc" if use_login else "-c", script]


def _emitter(ctx: ToolContext) -> Any:
    def sink(stream: str, text: str) -> None:
        ctx.emit(ToolOutputEvent(id=ctx.call_id, stream=stream, chunk=text))  # type: ignore[arg-type]

    return sink


def sandboxed(argv: list[str], ctx: ToolContext) -> list[str]:
    """``argv`` inside the sandbox when the settings ask for one (full-auto, or
    ``[sandbox] always``) or the call runs without a person approving it
    (``ctx.sandbox_required``: read-only mode, a saved or configured rule); unchanged
    otherwise. When no sandbox works here, an unapproved command runs as is and the result
    says so in one line."""

    config = ctx.settings.get("sandbox") or {}
    try:
        if config.get("enabled") or not ctx.sandbox_required:
            return wrap_for_settings(argv, ctx.workspace, ctx.settings)
        return sandbox_argv(argv, ctx.workspace, bool(config.get("network", False)),
                            writable=config.get("writable", ()),
                            backend=config.get("backend") or None)
    except SandboxUnavailable as err:
        if config.get("enabled"):
            raise ToolError(f"not run: {err}") from None
        ctx.notes.append(f"note: this command ran without a sandbox ({err})")
        return list(argv)


LANDLOCK_NOTE = (
    "note: the Landlock sandbox keeps .git and the other protected folders read-only by "
    "letting commands create new files and folders at the workspace's top level but not "
    "write them in the same command: they are writable from the next command on (or create "
    "them in a sub-folder, with the file tools, or install bubblewrap)")
LANDLOCK_SPLIT_KEY = "shell.landlock_split"


def _landlock_note(ctx: ToolContext, outcome: Outcome, output: str) -> None:
    """Say why a command failed when Landlock may have refused a new top-level file."""
    if (ctx.state.get(LANDLOCK_SPLIT_KEY) and outcome.exit_code not in (0, None)
            and "ermission denied" in output and LANDLOCK_NOTE not in ctx.notes):
        ctx.notes.append(LANDLOCK_NOTE)


async def with_snapshot(ctx: ToolContext, rt: ShellRuntime, argv: list[str]) -> tuple[list[str], dict[str, str] | None]:
    """``[shell, "-lc", script]`` becomes ``[shell, "-c", script]`` with the environment the
    login shell set up once, outside the sandbox (:mod:`.snapshot`); the base environment
    for :func:`command_env` is returned with it (None: unchanged)."""

    if not rt.settings.snapshot or not snapshot.is_login_shell_argv(argv):
        return argv, None
    shell = shutil.which(argv[0]) or argv[0]
    base = command_env(new_tag())
    try:
        env = await snapshot.login_env(shell, rt.settings.snapshot_timeout, base)
    except snapshot.SnapshotRefused as err:
        note = f"note: the login shell's environment was not captured ({err}); ran with -l"
        if note not in ctx.notes:
            ctx.notes.append(note)
        return argv, None
    return [argv[0], "-c", argv[2]], {**os.environ, **env}


async def start(ctx: ToolContext, rt: ShellRuntime, argv: list[str], cwd: Path, kind: str) -> Running:
    argv, base = await with_snapshot(ctx, rt, argv)
    argv = sandboxed(argv, ctx)
    ctx.state[LANDLOCK_SPLIT_KEY] = "aiagent.infra.sandbox.landlock_exec" in argv and "--protect" in argv
    settings = rt.settings
    half = max(1024, settings.memory_bytes // 2)
    capture = Capture(rt.new_log(kind), half, half, settings.log_max_bytes)
    env = command_env(new_tag(), settings.env, cwd=cwd, keep=settings.keep_env, base=base)
    try:
        return await spawn(argv, cwd=cwd, env=env, capture=capture, on_output=_emitter(ctx),
                           grace=settings.kill_grace)
    except OSError as err:
        capture.close()
        name = argv[0] if argv else ""
        raise ToolError(f"execution error: {err.strerror or err}: {name!r}") from None


def _limits(settings: ShellSettings, timeout_ms: int | None) -> Limits:
    hard = timeout_ms / 1000 if timeout_ms is not None else settings.timeout or None
    background = None if timeout_ms is not None else settings.background_after or None
    return Limits(
        timeout=hard,
        inactivity=settings.inactivity_timeout or None,
        background_after=background,
        kill_grace=settings.kill_grace,
    )


async def run_foreground(
    ctx: ToolContext, argv: list[str], cwd: Path, timeout_ms: int | None, command: str
) -> CommandRun:
    rt = runtime(ctx)
    running = await start(ctx, rt, argv, cwd, "cmd")
    outcome = await running.supervise(_limits(rt.settings, timeout_ms), ctx.cancel)
    job = None
    if outcome.reason == "backgrounded":
        job = rt.jobs.adopt(running, command, rt.settings.kill_grace)
    capture = running.capture
    assert capture.log_path is not None
    _landlock_note(ctx, outcome, capture.text())
    return CommandRun(outcome, capture.text(), capture.complete, capture.log_path, job)


async def run_background(ctx: ToolContext, argv: list[str], cwd: Path, command: str) -> tuple[Job, str]:
    rt = runtime(ctx)
    half = max(1024, rt.settings.memory_bytes // 2)
    capture = Capture.external(rt.new_log("job"), half, half)
    argv, base = await with_snapshot(ctx, rt, argv)
    argv = sandboxed(argv, ctx)
    try:
        env = command_env(new_tag(), rt.settings.env, cwd=cwd, keep=rt.settings.keep_env, base=base)
        running = spawn_detached(argv, cwd=cwd, env=env, capture=capture,
                                 supervised=not rt.settings.keep_jobs, grace=rt.settings.kill_grace)
    except OSError as err:
        raise ToolError(f"execution error: {err.strerror or err}: {argv[0]!r}") from None
    job = rt.jobs.adopt(running, command, rt.settings.kill_grace)
    if job.watcher is not None:
        import asyncio

        await asyncio.wait({job.watcher}, timeout=rt.settings.job_start_wait)
    running.refresh()
    data, job.read_pos, _lost = running.capture.read_since(0, 16384)
    return job, data.decode("utf-8", "replace")


# -- formatting --------------------------------------------------------------------------


def _content(run: CommandRun) -> str:
    out = run.outcome
    millis = int(out.duration * 1000)
    if out.reason == "timeout":
        return f"command timed out after {millis} milliseconds\n{run.output}"
    if out.reason == "inactivity_timeout":
        return f"command timed out after {millis} milliseconds (no output for too long)\n{run.output}"
    if out.reason == "canceled":
        return f"command canceled after {millis} milliseconds\n{run.output}"
    return run.output


def exit_code(run: CommandRun) -> int:
    out = run.outcome
    if out.timed_out:
        return TIMEOUT_EXIT_CODE
    if out.canceled:
        return CANCEL_EXIT_CODE
    return -1 if out.exit_code is None else out.exit_code


def _notes(run: CommandRun, truncated: bool) -> str:
    notes = []
    if run.job is not None:
        notes.append(
            f"[still running after {run.outcome.duration:.0f} s: moved to the background as job "
            f"{run.job.id} (pid {run.job.pid}); job_output reads more, job_kill stops it]"
        )
    if run.outcome.leftovers:
        notes.append(
            f"[stopped {run.outcome.leftovers} background process(es) the command left running; "
            "use run_in_background to keep a server running]"
        )
    if truncated or not run.complete:
        notes.append(f"[full output: {run.log_path}]")
    return "".join("\n" + n for n in notes)


def wall_seconds(duration: float) -> str:
    text = f"{round(duration, 1):.1f}"
    return text[:-2] if text.endswith(".0") else text


def format_json(run: CommandRun, max_tokens: int) -> str:
    content = _content(run)
    output = formatted_truncate(content, max_tokens)
    output += _notes(run, output != content)
    payload = {"output": output, "metadata": {"exit_code": exit_code(run), "duration_seconds": round(run.outcome.duration, 1)}}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def format_freeform(run: CommandRun, max_tokens: int) -> str:
    content = _content(run)
    total = line_count(content)
    output = truncate_middle(content, max_tokens)
    sections = [f"Exit code: {exit_code(run)}", f"Wall time: {wall_seconds(run.outcome.duration)} seconds"]
    if total != line_count(output):
        sections.append(f"Total output lines: {total}")
    sections += ["Output:", output + _notes(run, output != content)]
    return "\n".join(sections)


def format_minimal(run: CommandRun | None, job: Job | None = None) -> str:
    if run is None:
        payload: dict[str, Any] = {"status": "success", "exit_code": None, "timed_out": False,
                                   "canceled": False, "reason": "backgrounded"}
    else:
        out = run.outcome
        failed = out.reason in ("timeout", "inactivity_timeout", "canceled") or (
            out.reason is None and out.exit_code != 0
        )
        reason = out.reason or ("non_zero_exit" if failed else None)
        payload = {"status": "failed" if failed else "success", "exit_code": out.exit_code,
                   "timed_out": out.timed_out, "canceled": out.canceled, "reason": reason}
        job = job or run.job
    if job is not None:
        payload["job_id"] = job.id
    return json.dumps(payload)


def _job_started(job: Job, initial: str) -> str:
    text = f"Started background job {job.id} (pid {job.pid}); output is logged to {job.log_path}.\n"
    text += f"Status: {job.status}\n"
    return text + ("Output so far:\n" + initial if initial else "No output yet.")


# -- the tools ---------------------------------------------------------------------------

# Codex's approval parameters (``create_approval_parameters``), on every shell-like tool.
# ``sandbox_permissions: "require_escalated"`` makes the approval policy ask; ``justification``
# and ``prefix_rule`` are accepted and validated but grant nothing: a saved grant is always
# the normalised prefix of the command the user approved, never a rule the model proposes.
APPROVAL_PROPS: dict[str, Any] = {
    "sandbox_permissions": string(
        'Sandbox permissions for the command. Set to "require_escalated" to request running '
        'without sandbox restrictions; defaults to "use_default".'
    ),
    "justification": string(
        'Only set if sandbox_permissions is "require_escalated".\n'
        "Request approval from the user to run this command outside the sandbox.\n"
        "Phrased as a simple question that summarizes the purpose of the\n"
        "command as it relates to the task at hand - e.g. 'Do you want to\n"
        "fetch and pull the latest version of this git branch?'"
    ),
    "prefix_rule": {
        "type": "array",
        "items": {"type": "string"},
        "description": (
            "Only specify when sandbox_permissions is `require_escalated`.\n"
            "Suggest a prefix command pattern that will allow you to fulfill similar requests "
            "from the user in the future.\n"
            'Should be a short but reasonable prefix, e.g. ["git", "pull"] or ["uv", "run"] or '
            '["pytest"].'
        ),
    },
}
_BACKGROUND_PROP = {
    "run_in_background": boolean(
        "Start the command as a background job (for servers and watchers) and return at once "
        "with its job id; read its output with job_output and stop it with job_kill."
    )
}

SHELL_DESCRIPTION_UNIX = (
    "Runs a shell command and returns its output.\n"
    '- The arguments to `shell` will be passed to execvp(). Most terminal commands should be '
    'prefixed with ["bash", "-lc"].\n'
    "- Always set the `workdir` param when using the shell function. Do not use `cd` unless "
    "absolutely necessary."
)
SHELL_DESCRIPTION_WINDOWS = (
    "Runs a Powershell command (Windows) and returns its output. Arguments to `shell` will be "
    "passed to CreateProcessW(). Most commands should be prefixed with "
    '["powershell.exe", "-Command"].'
)
SHELL_COMMAND_DESCRIPTION_UNIX = (
    "Runs a shell command and returns its output.\n"
    "- Always set the `workdir` param when using the shell_command function. Do not use `cd` "
    "unless absolutely necessary."
)
SHELL_COMMAND_DESCRIPTION_WINDOWS = "Runs a Powershell command (Windows) and returns its output."


def _workdir(ctx: ToolContext, args: dict[str, Any]) -> Path:
    raw = args.get("workdir")
    path = resolve_path(ctx, raw, field="workdir") if raw else resolve_path(ctx, ".", field="workdir")
    if not path.is_dir():
        raise ToolError(f"workdir {raw} is not a directory")
    return path


def _timeout_ms(args: dict[str, Any]) -> int | None:
    if args.get("timeout_ms") is None:
        return None
    value = int_arg(args, "timeout_ms", 0)
    if value <= 0:
        raise ToolError("timeout_ms must be greater than zero")
    return value


class _CommandTool(BuiltinTool):
    effect = ToolEffect.of("execute", command_args=("command",))
    freeform = False

    async def execute(self, ctx: ToolContext, argv: list[str], args: dict[str, Any], background: bool, command: str) -> ToolResult:
        settings = runtime(ctx).settings
        cwd = _workdir(ctx, args)
        if background or args.get("run_in_background"):
            job, initial = await run_background(ctx, argv, cwd, command)
            text = format_minimal(None, job) if settings.result == "minimal" else _job_started(job, initial)
            return ToolResult(text, metadata={"job_id": job.id})
        run = await run_foreground(ctx, argv, cwd, _timeout_ms(args), command)
        meta = {"exit_code": run.outcome.exit_code, "timed_out": run.outcome.timed_out,
                "canceled": run.outcome.canceled, "reason": run.outcome.reason,
                "log_path": str(run.log_path)}
        if settings.result == "minimal":
            return ToolResult(format_minimal(run), metadata=meta)
        fmt = format_freeform if self.freeform else format_json
        return ToolResult(fmt(run, settings.max_output_tokens), metadata=meta)


class ShellTool(_CommandTool):
    name = "shell"
    description = SHELL_DESCRIPTION_WINDOWS if WINDOWS else SHELL_DESCRIPTION_UNIX
    input_schema = schema(
        {
            "command": {"type": "array", "items": {"type": "string"}, "description": "The command to execute"},
            "workdir": string("The working directory to execute the command in"),
            "timeout_ms": number("The timeout for the command in milliseconds"),
            **APPROVAL_PROPS,
            **_BACKGROUND_PROP,
        },
        ["command"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        argv = [str(a) for a in args["command"]]
        if not argv:
            raise ToolError("command must not be empty")
        background = False
        if len(argv) == 3 and argv[1] in ("-c", "-lc"):
            script, background = split_background(argv[2])
            argv = [argv[0], argv[1], script]
        return await self.execute(ctx, argv, args, background, " ".join(argv))


class ShellCommandTool(_CommandTool):
    name = "shell_command"
    freeform = True
    description = SHELL_COMMAND_DESCRIPTION_WINDOWS if WINDOWS else SHELL_COMMAND_DESCRIPTION_UNIX
    input_schema = schema(
        {
            "command": string("The shell script to execute in the user's default shell"),
            "workdir": string("The working directory to execute the command in"),
            "login": boolean("Whether to run the shell with login shell semantics. Defaults to true."),
            "timeout_ms": number("The timeout for the command in milliseconds"),
            **APPROVAL_PROPS,
            **_BACKGROUND_PROP,
        },
        ["command"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        script, background = split_background(args["command"])
        if not script.strip():
            raise ToolError("command must not be empty")
        argv = shell_argv(runtime(ctx).settings, script, args.get("login"))
        return await self.execute(ctx, argv, args, background, script)


class JobListTool(BuiltinTool):
    name = "job_list"
    description = "Lists the background jobs of this session with their id, pid, status, runtime and command."
    effect = READ  # the run's own job table
    input_schema = schema({})

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return runtime(ctx).jobs.table()


class JobOutputTool(BuiltinTool):
    name = "job_output"
    description = (
        "Returns what a background job printed since the previous job_output call for it, "
        "and whether it is still running."
    )
    effect = READ  # the log of a job this run started
    input_schema = schema(
        {
            "job_id": number("Id of the job (from job_list or the command that started it)."),
            "max_output_tokens": number("Maximum number of tokens to return. Excess output will be truncated."),
        },
        ["job_id"],
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        rt = runtime(ctx)
        job = rt.jobs.get(int_arg(args, "job_id", 0))
        tokens = int_arg(args, "max_output_tokens", rt.settings.max_output_tokens)
        job.running.refresh()
        data, job.read_pos, lost = job.running.capture.read_since(job.read_pos, tokens * 4 * 4)
        text = data.decode("utf-8", "replace")
        head = f"Job {job.id} (pid {job.pid}): {job.status}\nLog: {job.log_path}\n"
        if lost:
            head += f"[{lost} older bytes skipped; see the log]\n"
        body = truncate_middle(text, tokens) if text else "(no new output)"
        return head + "Output:\n" + body


class JobKillTool(BuiltinTool):
    name = "job_kill"
    description = "Stops a background job and every process it started."
    input_schema = schema({"job_id": number("Id of the job to stop.")}, ["job_id"])
    effect = ToolEffect.of("execute", approved_by="the command that started the job")

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        rt = runtime(ctx)
        job = rt.jobs.get(int_arg(args, "job_id", 0))
        if job.outcome is not None and not job.killed:
            return f"Job {job.id} had already finished: {job.status}"
        job = await rt.jobs.kill(job.id, rt.settings.kill_grace)
        return f"Job {job.id} (pid {job.pid}) stopped."
