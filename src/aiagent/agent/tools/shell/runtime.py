"""Per-run shell state and settings.

One :class:`ShellRuntime` lives in ``ctx.state`` for each agent run: the folder holding
output logs, the background jobs and the interactive sessions. The front-end calls
:func:`shutdown` when the run ends; it kills jobs (unless the user keeps them) and
sessions, and removes the log folder it created.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.contracts.tools import ToolError

if TYPE_CHECKING:
    from aiagent.agent.tools.shell.jobs import JobManager
    from aiagent.agent.tools.shell.sessions import SessionManager
    from aiagent.contracts.tools import ToolContext

STATE_KEY = "shell.runtime"
READABLE_ROOTS_KEY = "tools.readable_roots"


@dataclass(slots=True)
class ShellSettings:
    """``[tools.shell]`` keys with their defaults (seconds unless noted)."""

    timeout: float = 300.0  # hard cap when the model gives no timeout_ms
    inactivity_timeout: float = 120.0  # stop a command silent for this long (0 = off)
    background_after: float = 60.0  # move a still-running command to a job (0 = off)
    kill_grace: float = 1.0  # between SIGTERM and SIGKILL
    max_output_tokens: int = 10_000  # what the model sees (4 bytes a token)
    memory_bytes: int = 262_144  # head + tail kept in memory per command
    log_max_bytes: int = 64 * 1024 * 1024  # cap of each output log file
    log_dir: str = ""  # where output logs go; empty = a temporary folder per run
    result: str = "codex"  # "codex" formats or "minimal" status JSON
    login: bool = True  # run shells with login semantics (-l), as Codex does
    snapshot: bool = True  # login: run the rc files once, outside the sandbox (see snapshot.py)
    snapshot_timeout: float = 10.0  # the longest that one login-shell start may take
    shell: str = ""  # shell binary; empty = $SHELL or /bin/bash
    env: dict[str, Any] = field(default_factory=dict)  # extra environment variables
    keep_env: list[str] = field(default_factory=list)  # credentials commands still get
    job_start_wait: float = 1.0  # output collected when a job starts
    keep_jobs: bool = False  # leave background jobs running when the run ends
    max_sessions: int = 64  # live exec_command sessions before pruning

    @classmethod
    def from_ctx(cls, ctx: ToolContext) -> ShellSettings:
        return cls.from_table(ctx.settings.get("shell", {}))

    @classmethod
    def from_table(cls, raw: object) -> ShellSettings:
        """From the raw ``[tools.shell]`` table (a one-line :class:`ToolError` if wrong)."""
        if not isinstance(raw, dict):
            raise ToolError("[tools.shell] must be a table")
        known = {f.name: f for f in fields(cls)}
        out = cls()
        for key, value in raw.items():
            if key not in known:
                continue
            setattr(out, key, _coerce(key, value, getattr(out, key)))
        if out.result not in ("codex", "minimal"):
            raise ToolError(f"[tools.shell] result must be \"codex\" or \"minimal\", not {out.result!r}")
        return out

    def shell_path(self) -> str:
        return self.shell or os.environ.get("SHELL") or "/bin/bash"


def _coerce(key: str, value: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            return bool(value)
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, dict):
            return dict(value)
        if isinstance(default, list):
            if not isinstance(value, list):
                raise TypeError
            return [str(v) for v in value]
        return str(value)
    except (TypeError, ValueError):
        raise ToolError(f"[tools.shell] {key}: expected a {type(default).__name__}, got {value!r}") from None


class ShellRuntime:
    def __init__(self, settings: ShellSettings) -> None:
        self.settings = settings
        self._owned_dir = not settings.log_dir
        self.log_dir = Path(settings.log_dir or tempfile.mkdtemp(prefix="aiagent-shell-"))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._counter = 0
        self._jobs: JobManager | None = None
        self._sessions: SessionManager | None = None

    def new_log(self, kind: str) -> Path:
        self._counter += 1
        return self.log_dir / f"{kind}-{self._counter}.log"

    @property
    def jobs(self) -> JobManager:
        if self._jobs is None:
            from aiagent.agent.tools.shell.jobs import JobManager

            self._jobs = JobManager()
        return self._jobs

    @property
    def sessions(self) -> SessionManager:
        if self._sessions is None:
            from aiagent.agent.tools.shell.sessions import SessionManager

            self._sessions = SessionManager(self.settings.max_sessions)
        return self._sessions

    async def close(self, keep_jobs: bool | None = None) -> None:
        keep = self.settings.keep_jobs if keep_jobs is None else keep_jobs
        if self._sessions is not None:
            await self._sessions.close_all()
        if self._jobs is not None:
            await self._jobs.close_all(keep)
        if self._owned_dir and not (keep and self._jobs and self._jobs.kept()):
            shutil.rmtree(self.log_dir, ignore_errors=True)


def runtime(ctx: ToolContext) -> ShellRuntime:
    found = ctx.state.get(STATE_KEY)
    if found is None:
        found = ShellRuntime(ShellSettings.from_ctx(ctx))
        ctx.state[STATE_KEY] = found
        ctx.state.setdefault(READABLE_ROOTS_KEY, []).append(str(found.log_dir))
    return found


async def shutdown(state: dict[str, Any], keep_jobs: bool | None = None) -> None:
    """End of a run: stop sessions and jobs (unless kept) and remove temporary logs."""
    found = state.pop(STATE_KEY, None)
    if found is not None:
        await found.close(keep_jobs)
