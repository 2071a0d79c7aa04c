"""Running a task's check: inside the sandbox the agent's shell commands run in, or, only
when asked with ``--unsandboxed-checks``, on this machine as it is.

Sandboxed (aiagent's own :func:`~aiagent.infra.sandbox.sandbox_argv`), the check can write
only to its work folder, a temp folder of its own beside it (fresh for each check, removed
after) and the caches its language names in ``languages.toml`` (``writable``); it reaches no
network; its environment is the one aiagent's shell tool gives a command (no provider keys).
Sandboxed or not, it runs through aiagent's process runner: at its time limit its whole
process tree is killed, including what it started in the background or in a new session.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tasks import TaskError

UNSANDBOXED = "unsandboxed (--unsandboxed-checks)"


@dataclass(frozen=True)
class CheckMode:
    backend: str  # the sandbox backend; "" when the checks run unsandboxed
    detail: str = ""

    @property
    def label(self) -> str:
        """How the checks run, as recorded beside each result."""
        return f"sandboxed: {self.backend}" if self.backend else UNSANDBOXED


def choose(backend: str, unsandboxed: bool) -> CheckMode:
    """The sandbox the checks run in; raises :class:`TaskError` (one line) when none works
    here and the user did not pass ``--unsandboxed-checks``."""
    if unsandboxed:
        return CheckMode("")
    try:
        from aiagent.infra import sandbox
    except ImportError as exc:
        raise TaskError(f"cannot import aiagent's sandbox with {sys.executable} ({exc}): run the harness "
                        "with aiagent's Python") from None
    info = sandbox.detect(backend)
    if not info.available:
        reason = " ".join(info.detail.split())
        raise TaskError(f"no sandbox for the checks on this machine ({reason}); pass --unsandboxed-checks "
                        "to run them unconfined")
    return CheckMode(info.backend, info.detail)


def run_check(command: str, work: Path, mode: CheckMode, timeout: float,
              writable: Iterable[str] = ()) -> tuple[bool, str]:
    """``bash -c command`` in ``work``: (passed, its output). Never raises for what the
    check does; a time-out is a failure that says so."""
    from aiagent.infra.process.collect import run_collected

    temp = work.with_name(work.name + ".check-tmp")
    shutil.rmtree(temp, ignore_errors=True)
    (temp / "cache").mkdir(parents=True)
    try:
        argv, env = _confined(["bash", "-c", command], work, temp, mode, writable)
        done = asyncio.run(run_collected(argv, cwd=work, timeout=timeout, env=env))
    except OSError as exc:
        return False, f"the check could not start: {exc}"
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    if done.timed_out:
        return False, f"the check timed out after {timeout:g}s; its processes were killed\n{text}"
    return done.exit_code == 0, text


def _confined(argv: list[str], work: Path, temp: Path, mode: CheckMode,
              writable: Iterable[str]) -> tuple[list[str], dict[str, str]]:
    """The argv and environment of the check in ``mode``."""
    if not mode.backend:
        return argv, dict(os.environ)
    base = {**os.environ, "TMPDIR": str(temp), "XDG_CACHE_HOME": str(temp / "cache")}
    from aiagent.agent.tools.shell.env import command_env
    from aiagent.infra.process.runner import new_tag
    from aiagent.infra.sandbox import sandbox_argv

    wrapped = sandbox_argv(argv, work, False, writable=[temp, *writable], backend=mode.backend,
                           shared_temps=False)
    return wrapped, command_env(new_tag(), base=base, cwd=work)
