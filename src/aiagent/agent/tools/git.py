"""Git tools over the ``git`` executable: status, diff, log, commit, branch.

Every call is built by :mod:`aiagent.infra.process.git` (no pager, editor, prompt, hook, fsmonitor,
external diff, textconv or filter the repository could set) and run by the one process
runner (:mod:`aiagent.infra.process.collect`) with a timeout; a missing
``git`` or a folder outside any repository gives one clear line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from aiagent.agent.tools.shell.env import NON_INTERACTIVE
from aiagent.agent.tools.tooldef import BuiltinTool, boolean, int_arg, number, schema, string
from aiagent.agent.tools.workspace import resolve_path
from aiagent.contracts.tools import READ, ToolContext, ToolEffect, ToolError
from aiagent.infra.process.collect import run_collected
from aiagent.infra.process.git import GitError, prepare_async

GIT_TIMEOUT = 60.0


async def git(ctx: ToolContext, *args: str, cwd: Path | None = None) -> str:

    where = cwd or resolve_path(ctx, ".")
    try:
        call = await prepare_async(where, args[0], *args[1:], env=_env(), config=[("color.ui", "never")])
    except GitError as err:
        raise ToolError(str(err)) from None
    done = await run_collected(call.argv, cwd=call.cwd, env=call.env, timeout=GIT_TIMEOUT)
    if done.timed_out:
        raise ToolError(f"git {args[0]} timed out after {GIT_TIMEOUT:.0f} seconds")
    if done.exit_code != 0:
        text = done.stderr.decode("utf-8", "replace") + done.stdout.decode("utf-8", "replace")
        raise ToolError(_failure(where, args[0], text))
    return done.stdout.decode("utf-8", "replace")


def _env() -> dict[str, str]:
    return {**os.environ, **NON_INTERACTIVE, "LC_ALL": "C"}


def _failure(where: Path, command: str, stderr: str) -> str:
    if "not a git repository" in stderr:
        return f"not a git repository: {where}"
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    detail = "; ".join(lines[-3:]) or "unknown error"
    return f"git {command} failed: {detail}"


def _paths(ctx: ToolContext, raw: Any) -> list[str]:
    if raw is None:
        return []
    items = [raw] if isinstance(raw, str) else list(raw)
    return [str(resolve_path(ctx, item)) for item in items]


class GitStatusTool(BuiltinTool):
    name = "git_status"
    description = "Shows the current branch and changed, staged and untracked files (git status --short --branch)."
    effect = READ
    input_schema = schema({})

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        out = await git(ctx, "status", "--short", "--branch", "--untracked-files=all")
        lines = out.rstrip("\n").splitlines()
        if len(lines) <= 1:
            lines.append("nothing to commit, working tree clean")
        return "\n".join(lines)


class GitDiffTool(BuiltinTool):
    name = "git_diff"
    description = (
        "Shows changes as a unified diff: unstaged changes by default, staged ones with "
        "`staged`, or against a commit/branch with `ref`; `stat` gives a summary only."
    )
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema(
        {
            "staged": boolean("Show staged (index) changes instead of unstaged ones."),
            "ref": string("Compare the working tree with this commit, branch or range (e.g. main, HEAD~2, a..b)."),
            "path": string("Limit the diff to this file or directory."),
            "stat": boolean("Only show a summary of changed files."),
        }
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        cmd = ["diff"]
        if args.get("staged"):
            cmd.append("--cached")
        if args.get("stat"):
            cmd.append("--stat")
        if args.get("ref"):
            ref = str(args["ref"])
            if ref.startswith("-"):
                raise ToolError("ref must not start with '-'")
            cmd.append(ref)
        out = await git(ctx, *cmd, "--", *_paths(ctx, args.get("path")))
        return out.rstrip("\n") or "No changes."


class GitLogTool(BuiltinTool):
    name = "git_log"
    description = "Lists recent commits (hash, date, author, subject), newest first."
    effect = ToolEffect.of("read", path_args=("path",))
    input_schema = schema(
        {
            "limit": number("How many commits to show (default 10, max 200)."),
            "ref": string("Branch, tag or range to list (default: the current branch)."),
            "path": string("Only commits that touched this file or directory."),
        }
    )

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        limit = max(1, min(200, int_arg(args, "limit", 10)))
        cmd = ["log", f"--max-count={limit}", "--date=short", "--pretty=format:%h %ad %an: %s"]
        if args.get("ref"):
            if str(args["ref"]).startswith("-"):
                raise ToolError("ref must not start with '-'")
            cmd.append(str(args["ref"]))
        try:
            out = await git(ctx, *cmd, "--", *_paths(ctx, args.get("path")))
        except ToolError as err:
            if "does not have any commits yet" in str(err):
                return "No commits yet."
            raise
        return out.rstrip("\n") or "No commits."


class GitCommitTool(BuiltinTool):
    name = "git_commit"
    description = (
        "Records a commit. Stages `paths` first (or every tracked change with `all`); "
        "without either, commits what is already staged."
    )
    input_schema = schema(
        {
            "message": string("The commit message."),
            "paths": {"type": "array", "items": {"type": "string"}, "description": "Files to stage before committing."},
            "all": boolean("Stage all changes to tracked files (git commit -a)."),
        },
        ["message"],
    )
    effect = ToolEffect.of("write")  # into .git: the legitimate writer, mode rules

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        message = args["message"].strip()
        if not message:
            raise ToolError("message must not be empty")
        paths = _paths(ctx, args.get("paths"))
        if paths:
            await git(ctx, "add", "--", *paths)
        cmd = ["commit", "-m", message] + (["-a"] if args.get("all") else [])
        try:
            out = await git(ctx, *cmd)
        except ToolError as err:
            if "nothing to commit" in str(err) or "no changes added" in str(err):
                raise ToolError("nothing to commit: stage files with `paths` or use `all`") from None
            raise
        return out.strip().splitlines()[0] if out.strip() else "Committed."


class GitBranchTool(BuiltinTool):
    name = "git_branch"
    description = (
        "Lists branches, or creates branch `name` (from `start_point`, default HEAD) and "
        "switches to it when `checkout` is true; `checkout` alone with an existing name switches."
    )
    input_schema = schema(
        {
            "name": string("Branch to create or switch to; omit to list branches."),
            "checkout": boolean("Switch to the branch."),
            "start_point": string("Commit or branch the new branch starts from."),
        }
    )
    effect = ToolEffect.of("write")  # into .git: the legitimate writer, mode rules

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> str:
        name = args.get("name")
        if not name:
            out = await git(ctx, "branch", "--list", "--no-color", "-vv")
            return out.rstrip("\n") or "No branches yet."
        if name.startswith("-"):
            raise ToolError("branch name must not start with '-'")
        existing = await git(ctx, "branch", "--list", name)
        start = [args["start_point"]] if args.get("start_point") else []
        if existing.strip():
            if not args.get("checkout"):
                raise ToolError(f"branch {name} already exists; set checkout to switch to it")
            await git(ctx, "switch", name)
            return f"Switched to branch {name}"
        if args.get("checkout"):
            await git(ctx, "switch", "-c", name, *start)
            return f"Created and switched to branch {name}"
        await git(ctx, "branch", name, *start)
        return f"Created branch {name}"
