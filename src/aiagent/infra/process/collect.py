"""Run a command to completion through the one runner and keep its whole output.

For tools that need every byte a command prints (ripgrep's matches, git's answers) rather
than the bounded head-and-tail view of :class:`~aiagent.infra.process.capture.Capture`. The
command gets the runner's guarantees: its own process tree, killed with everything it
started on the time limit or when the caller is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aiagent.infra.process.capture import Capture
from aiagent.infra.process.runner import Limits, Outcome, new_tag, spawn
from aiagent.infra.process.tree import TAG_VARIABLE

MAX_BYTES = 64 * 1024 * 1024  # per stream; more is dropped and flagged


@dataclass(slots=True)
class Collected:
    outcome: Outcome
    stdout: bytes
    stderr: bytes
    truncated: bool = False  # a stream printed more than ``max_bytes``

    @property
    def exit_code(self) -> int | None:
        return self.outcome.exit_code

    @property
    def timed_out(self) -> bool:
        return self.outcome.timed_out


async def run_collected(
    argv: list[str], *, cwd: Path, timeout: float, env: Mapping[str, str] | None = None,
    max_bytes: int = MAX_BYTES, stdin: bytes | None = None,
) -> Collected:
    """Run ``argv`` in ``cwd`` with ``env`` (default: ours), stdin ``/dev/null`` (or the
    bytes ``stdin``, then closed), until it exits or ``timeout`` seconds pass (then its tree
    is killed and ``timed_out`` is set)."""
    streams = {"stdout": bytearray(), "stderr": bytearray()}
    dropped = False

    def keep(name: str, data: bytes) -> None:
        nonlocal dropped
        buffer = streams[name]
        room = max_bytes - len(buffer)
        buffer += data[: max(room, 0)]
        dropped = dropped or len(data) > room

    full_env = dict(os.environ if env is None else env)
    full_env[TAG_VARIABLE] = new_tag()
    running = await spawn(argv, cwd=cwd, env=full_env, capture=Capture(None, 0, 0, 0), on_data=keep,
                          stdin_pipe=stdin is not None)
    feeding = _feed(running.stdin, stdin) if running.stdin is not None and stdin is not None else None
    try:
        outcome = await running.supervise(Limits(timeout=timeout))
    finally:
        if feeding is not None and not feeding.done():
            feeding.cancel()
    return Collected(outcome, bytes(streams["stdout"]), bytes(streams["stderr"]), dropped)


def _feed(writer: asyncio.StreamWriter, data: bytes) -> asyncio.Task[None]:
    """Write ``data`` to the child's stdin and close it, in the background (a child that
    reads nothing must not block us; a closed pipe is not an error)."""

    async def feed() -> None:
        with contextlib.suppress(OSError, RuntimeError):
            writer.write(data)
            await writer.drain()
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()

    return asyncio.ensure_future(feed())
