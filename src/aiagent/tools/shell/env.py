"""The environment a command runs in: non-interactive, no pager, no colour.

Every command gets these variables on top of the agent's own environment (then any
``[tools.shell] env`` table from the configuration), so that tools never stop to ask,
page or draw colours the model cannot read:

=====================  ===========  ====================================================
variable               value        why
=====================  ===========  ====================================================
PAGER, GIT_PAGER,      cat          ``git log``, ``man``, ``gh`` never wait in a pager
MANPAGER, GH_PAGER
NO_COLOR, TERM         1, dumb      plain text (``TERM`` stays as given for PTY sessions)
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
"""

from __future__ import annotations

import os
from collections.abc import Mapping

TAG_VARIABLE = "AIAGENT_PROC_TAG"

NON_INTERACTIVE: dict[str, str] = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "GH_PAGER": "cat",
    "NO_COLOR": "1",
    "CLICOLOR": "0",
    "TERM": "dumb",
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
) -> dict[str, str]:
    """The environment for one command; ``tag`` marks all of its processes."""
    env = dict(os.environ if base is None else base)
    env.update(NON_INTERACTIVE)
    if tty:
        env["TERM"] = "xterm-256color"
    env.setdefault("LANG", "C.UTF-8")
    for key, value in (extra or {}).items():
        env[str(key)] = str(value)
    env[TAG_VARIABLE] = tag
    return env
