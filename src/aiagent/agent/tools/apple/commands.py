"""Running ``xcodebuild`` and ``xcrun`` through the one process runner.

:func:`run_streamed` feeds the output to a :class:`~aiagent.agent.tools.apple.buildlog.BuildLog`
as it arrives (and to the front-end as live output) and keeps only a bounded tail, so a
build of any length costs bounded memory; :func:`run_small` collects a short answer
(``simctl list -j``, ``xcresulttool`` JSON) up to a byte cap.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.contracts.events import ToolOutputEvent
from aiagent.contracts.tools import ToolContext, ToolError
from aiagent.infra.process.capture import Capture
from aiagent.infra.process.collect import run_collected
from aiagent.infra.process.runner import Limits, new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE

BUILD_TIMEOUT = 3600.0  # seconds: a clean archive of a large app takes a while
BUILD_INACTIVITY = 900.0  # seconds without a line (a stuck build or test host)
SMALL_TIMEOUT = 120.0
SMALL_MAX_BYTES = 16 * 1024 * 1024
TAIL_BYTES = 16 * 1024


@dataclass(slots=True)
class Finished:
    exit_code: int | None
    timed_out: bool
    reason: str | None
    tail: str
    duration: float


def tool_env() -> dict[str, str]:
    return {**os.environ, "NSUnbufferedIO": "YES"}


async def run_streamed(argv: list[str], ctx: ToolContext, cwd: Path, log: Any,
                       timeout: float = BUILD_TIMEOUT) -> Finished:
    """Run ``argv``; every byte of stdout and stderr goes to ``log.feed_bytes``."""

    def on_data(stream: str, data: bytes) -> None:
        log.feed_bytes(data)
        ctx.emit(ToolOutputEvent(ctx.call_id, "stdout", data.decode("utf-8", "replace")))

    env = tool_env()
    env[TAG_VARIABLE] = new_tag()
    capture = Capture(None, 0, TAIL_BYTES, 0)
    try:
        running = await spawn(argv, cwd=cwd, env=env, capture=capture, on_data=on_data, merge_stderr=True)
    except OSError as exc:
        raise ToolError(f"could not start {argv[0]}: {exc.strerror or exc}") from None
    outcome = await running.supervise(Limits(timeout=timeout, inactivity=BUILD_INACTIVITY), ctx.cancel)
    tail = bytes(capture.tail).decode("utf-8", "replace")
    return Finished(outcome.exit_code, outcome.timed_out, outcome.reason, tail, outcome.duration)


async def run_small(argv: list[str], cwd: Path, timeout: float = SMALL_TIMEOUT) -> tuple[int | None, str, str]:
    """Run ``argv`` to completion; (exit code, stdout, stderr). A time-out is a ToolError."""

    try:
        done = await run_collected(argv, cwd=cwd, timeout=timeout, env=tool_env(), max_bytes=SMALL_MAX_BYTES)
    except OSError as exc:
        raise ToolError(f"could not start {argv[0]}: {exc.strerror or exc}") from None
    if done.timed_out:
        raise ToolError(f"{' '.join(argv[:3])} timed out after {timeout:.0f} seconds")
    return done.exit_code, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


async def run_json(argv: list[str], cwd: Path, timeout: float = SMALL_TIMEOUT) -> Any:
    """Run ``argv`` and read its stdout as JSON; a failure is one line (ToolError)."""
    code, out, err = await run_small(argv, cwd, timeout)
    if code != 0:
        raise ToolError(f"{' '.join(argv[:3])} failed (exit {code}): {last_line(err or out)}")
    try:
        return json.loads(out)
    except json.JSONDecodeError as exc:
        raise ToolError(f"{' '.join(argv[:3])} printed no valid JSON ({exc.msg} at line {exc.lineno})") from None


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
