"""The environment a command runs in: non-interactive, no pager, no colour, UTF-8.

Every command gets these variables on top of the agent's own environment (then any
``[tools.shell] env`` table from the configuration), so that tools never stop to ask,
page or draw colours the model cannot read. The first group is Codex CLI's
``UNIFIED_EXEC_ENV`` (``codex-rs/core/src/unified_exec/process_manager.rs``), set with the
same values and, like Codex, overriding what the agent inherited:

=====================  ===========  ====================================================
variable               value        why
=====================  ===========  ====================================================
NO_COLOR               1            plain text (Codex)
TERM                   dumb         (Codex; also for ``tty: true`` sessions)
LANG, LC_CTYPE,        C.UTF-8      UTF-8 output whatever the user's locale (Codex)
LC_ALL
COLORTERM              (empty)      (Codex)
PAGER, GIT_PAGER,      cat          ``git log``, ``gh`` never wait in a pager (Codex)
GH_PAGER
MANPAGER               cat          ``man`` neither
CLICOLOR               0
CI                     1            test runners and installers pick non-interactive modes
GIT_TERMINAL_PROMPT    0            git fails instead of asking for credentials
GIT_EDITOR, EDITOR     true         ``git commit`` without ``-m`` aborts instead of hanging
GIT_SSH_COMMAND        ssh -o BatchMode=yes
DEBIAN_FRONTEND        noninteractive
PIP_NO_INPUT           1
PYTHONUNBUFFERED       1            Python output streams live
AIAGENT_PROC_TAG       <unique>     marks every process of one command (tree kill)
=====================  ===========  ====================================================

Codex also sets ``CODEX_CI=1``; we do not claim to be Codex (``CI=1`` plays that part).
Codex sets its group for ``exec_command`` only; we set it for every command.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from aiagent.infra.process.environment import without_secrets
from aiagent.infra.process.git import GitError, config_env
from aiagent.infra.process.tree import TAG_VARIABLE

__all__ = ["CODEX_EXEC_ENV", "NON_INTERACTIVE", "TAG_VARIABLE", "command_env"]

CODEX_EXEC_ENV: dict[str, str] = {
    "NO_COLOR": "1",
    "TERM": "dumb",
    "LANG": "C.UTF-8",
    "LC_CTYPE": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "COLORTERM": "",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GH_PAGER": "cat",
}

NON_INTERACTIVE: dict[str, str] = {
    **CODEX_EXEC_ENV,
    "MANPAGER": "cat",
    "CLICOLOR": "0",
    "CI": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "PYTHONUNBUFFERED": "1",
}


def command_env(
    tag: str,
    extra: Mapping[str, object] | None = None,
    *,
    tty: bool = False,
    base: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    keep: Iterable[str] = (),
) -> dict[str, str]:
    """The environment for one command; ``tag`` marks all of its processes.

    Credentials of the agent's environment (provider keys, tokens: see
    :mod:`aiagent.infra.process.environment`) are left out unless named in ``keep``
    (``[tools.shell] keep_env``). With ``cwd``, git configuration that neutralises a
    repository's fsmonitor, hooks, pagers and drivers is added, so a ``git`` the command
    runs cannot run the repository's programs. ``tty`` is accepted for callers that open a
    PTY; like Codex, the environment is the same (``TERM=dumb``) either way."""
    del tty
    env = without_secrets(os.environ if base is None else base, keep)
    env.update(NON_INTERACTIVE)
    if cwd is not None:
        env.update(_git_hardening(cwd, env))
    for key, value in (extra or {}).items():
        env[str(key)] = str(value)
    env[TAG_VARIABLE] = tag
    return env


def _git_hardening(cwd: Path, env: Mapping[str, str]) -> dict[str, str]:
    """``GIT_CONFIG_*`` entries for ``cwd``; none when git is absent or cannot read it."""

    try:
        return config_env(cwd, env)
    except (GitError, OSError):
        return {}
