"""Running a command for a skill, through the one process runner (:mod:`aiagent.infra.process.runner`):
its own supervised process tree, a time limit, bounded output, and nothing left running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE


class _Head:
    """The first ``cap`` characters of each stream."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.kept: dict[str, int] = {"stdout": 0, "stderr": 0}

    def __call__(self, stream: str, text: str) -> None:
        room = self.cap - self.kept.get(stream, 0)
        if room > 0:
            self.parts.setdefault(stream, []).append(text[:room])
            self.kept[stream] = self.kept.get(stream, 0) + min(room, len(text))

    def text(self, stream: str) -> str:
        return "".join(self.parts.get(stream, []))


async def run_command(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, cap: int) -> dict[str, Any]:
    """Run ``argv``; return stdout, stderr, exit_code, timed_out. Never hangs past ``timeout``."""

    head = _Head(cap)
    try:
        running = await spawn(argv, cwd=cwd, env={**env, TAG_VARIABLE: new_tag()},
                              capture=Capture(None, 0, 0, 0), on_output=head, grace=0.5)
    except FileNotFoundError:
        return {"stdout": "", "stderr": f"{argv[0]}: command not found", "exit_code": 127, "timed_out": False}
    except OSError as exc:
        return {"stdout": "", "stderr": f"{argv[0]}: {exc.strerror}", "exit_code": 126, "timed_out": False}
    outcome = await running.supervise(Limits(timeout=timeout, kill_grace=0.5))
    timed_out = outcome.timed_out
    return {
        "stdout": head.text("stdout"),
        "stderr": head.text("stderr") + (f"\n[timed out after {timeout:g}s]" if timed_out else ""),
        "exit_code": -1 if timed_out else outcome.exit_code,
        "timed_out": timed_out,
    }
