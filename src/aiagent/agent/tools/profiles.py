"""Tool profiles: which tools the model sees.

Too many overlapping tools confuse models, so a run exposes one profile (``[tools]
profile``, default ``default``):

``codex``     Codex CLI's own set: shell, shell_command, exec_command, write_stdin,
              read_file, list_dir, grep_files, apply_patch, update_plan.
``default``   one tool per job: shell_command (with background jobs), read_file,
              list_dir, search, glob, ast_search, edit, write_file, apply_patch, the job tools and
              the git tools, schedule_task, update_plan, task (subagents).
``readonly``  looks but never changes anything: read_file, list_dir, grep_files, search,
              glob, ast_search, git_status, git_diff, git_log, update_plan (a plan changes
              nothing outside the conversation).
``all``       every built-in tool.

Groups name several tools at once where a list of tools is accepted (``--tools``):
``read``, ``search``, ``edit``, ``shell``, ``exec``, ``jobs``, ``git``, ``web``, ``plan``, ``apple`` (the
``apple-dev`` skill's tools); a profile name also works as a group. :func:`offerable` drops
the tools that are not for this platform (the Apple tools off macOS).
"""

from __future__ import annotations

from collections.abc import Iterable

from aiagent.agent.tools.apple import TOOLS as APPLE_TOOLS
from aiagent.agent.tools.apple.gating import offered
from aiagent.agent.tools.base import BUILTIN_TOOLS
from aiagent.contracts.tools import ToolError


class UnknownProfileError(ToolError, ValueError):
    """A profile name that does not exist (one line, lists the valid names)."""


PROFILES: dict[str, tuple[str, ...]] = {
    "codex": (
        "shell", "shell_command", "exec_command", "write_stdin",
        "read_file", "list_dir", "grep_files", "apply_patch", "update_plan",
    ),
    "default": (
        "shell_command", "job_list", "job_output", "job_kill",
        "read_file", "list_dir", "search", "glob", "ast_search",
        "edit", "write_file", "apply_patch",
        "git_status", "git_diff", "git_log", "git_commit", "git_branch",
        "schedule_task", "update_plan", "task",
    ),
    "readonly": (
        "read_file", "list_dir", "grep_files", "search", "glob", "ast_search",
        "git_status", "git_diff", "git_log", "update_plan",
    ),
}


def profile_names() -> list[str]:
    return [*PROFILES, "all"]


def profile_tools(name: str) -> list[str]:
    """The tool names of profile ``name``; a one-line error for an unknown profile."""
    if name == "all":
        return sorted(BUILTIN_TOOLS)
    try:
        return list(PROFILES[name])
    except KeyError:
        raise UnknownProfileError(
            f"unknown tool profile {name!r}; choose one of: {', '.join(profile_names())}"
        ) from None


GROUPS: dict[str, tuple[str, ...]] = {
    "read": ("read_file", "list_dir"),
    "search": ("search", "glob", "grep_files", "ast_search"),
    "edit": ("edit", "write_file", "apply_patch"),
    "shell": ("shell_command", "job_list", "job_output", "job_kill"),
    "exec": ("exec_command", "write_stdin"),
    "jobs": ("job_list", "job_output", "job_kill"),
    "git": ("git_status", "git_diff", "git_log", "git_commit", "git_branch"),
    "web": ("web_fetch", "web_search"),
    "plan": ("update_plan",),
    "apple": tuple(APPLE_TOOLS),
}


def offerable(names: Iterable[str]) -> list[str]:
    """``names`` without the tools this platform cannot run (they are never offered)."""

    return offered(names)


def expand_groups(names: Iterable[str]) -> list[str]:
    """Replace group and profile names by their tools; other names pass through."""
    out: list[str] = []
    for name in names:
        name = name.strip()
        if name in GROUPS:
            out += GROUPS[name]
        elif name in PROFILES or name == "all":
            out += profile_tools(name)
        elif name:
            out.append(name)
    return list(dict.fromkeys(out))
