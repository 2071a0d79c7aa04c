"""Running a command for a skill: own process group, time limit, bounded output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any


async def _read_capped(stream: asyncio.StreamReader | None, cap: int, sink: list[bytes]) -> None:
    if stream is None:
        return
    kept = 0
    while chunk := await stream.read(65536):
        if kept < cap:
            sink.append(chunk[: cap - kept])
            kept += len(chunk)


async def run_command(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, cap: int) -> dict[str, Any]:
    """Run ``argv``; return stdout, stderr, exit_code, timed_out. Never hangs past ``timeout``."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )
    except FileNotFoundError:
        return {"stdout": "", "stderr": f"{argv[0]}: command not found", "exit_code": 127, "timed_out": False}
    except OSError as exc:
        return {"stdout": "", "stderr": f"{argv[0]}: {exc.strerror}", "exit_code": 126, "timed_out": False}
    out: list[bytes] = []
    err: list[bytes] = []
    readers = asyncio.gather(_read_capped(proc.stdout, cap, out), _read_capped(proc.stderr, cap, err))
    timed_out = False
    try:
        await asyncio.wait_for(proc.wait(), timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        timed_out = True
        _kill(proc)
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            readers.cancel()
            raise
    _kill(proc)  # whatever it left running in its group
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(readers, 1.0)
    return {
        "stdout": b"".join(out).decode("utf-8", "replace"),
        "stderr": b"".join(err).decode("utf-8", "replace") + (f"\n[timed out after {timeout:g}s]" if timed_out else ""),
        "exit_code": -1 if timed_out else proc.returncode,
        "timed_out": timed_out,
    }


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
