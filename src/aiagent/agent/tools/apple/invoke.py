"""Running an Apple/Swift command-line tool for a tool call: found on PATH, run by the one
process runner with a time limit, its output decoded. A missing program is one line that
says what is needed."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from aiagent.contracts.tools import ToolError
from aiagent.infra.process.collect import run_collected

#: What to install when a program is not on PATH.
NEEDS = {
    "swift": "swift is not on PATH: install a Swift toolchain from https://www.swift.org/install "
             "(or with swiftly: https://www.swift.org/swiftly) and make sure `swift` is on PATH",
    "xcodebuild": "xcodebuild needs macOS with Xcode installed (xcode-select -s /Applications/Xcode.app)",
    "codesign": "codesign needs macOS with the Xcode command-line tools (xcode-select --install)",
    "security": "the `security` command needs macOS",
}


@dataclass(slots=True)
class Ran:
    """A finished run (a time-out is a ToolError, never a Ran)."""

    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool


def on_macos() -> bool:
    return sys.platform == "darwin"


def find(program: str) -> str | None:
    return shutil.which(program)


def need(program: str) -> str:
    """The full path of ``program``, or a :class:`ToolError` saying how to get it."""
    found = find(program)
    if found is None:
        raise ToolError(NEEDS.get(program, f"{program} is not on PATH"))
    return found


async def run(program: str, args: list[str], *, cwd: Path, timeout: float,
              max_bytes: int = 16 * 1024 * 1024) -> Ran:
    """Run ``program args`` in ``cwd``; a time-out raises :class:`ToolError`."""

    argv = [need(program), *args]
    env = {**os.environ, "NSUnbufferedIO": "YES", "LC_ALL": "C", "TERM": "dumb"}
    done = await run_collected(argv, cwd=cwd, env=env, timeout=timeout, max_bytes=max_bytes)
    if done.timed_out:
        raise ToolError(f"{program} {' '.join(args[:2])} timed out after {timeout:.0f} seconds")
    return Ran(done.exit_code, done.stdout.decode("utf-8", "replace"),
               done.stderr.decode("utf-8", "replace"), done.truncated)
