"""Finding and killing a command's processes without the reaper (the fallback path).

Every command carries a unique tag in its environment (``AIAGENT_PROC_TAG``), so that its
processes can be found by scanning ``/proc`` even after they left its process group.
:func:`kill_tree` is the last resort: the reaper (:mod:`aiagent.infra.process.reaper`) finds
every descendant by its parent chain, including those that cleared their environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time

TAG_VARIABLE = "AIAGENT_PROC_TAG"


def find_tagged(tag: str) -> list[int]:
    """PIDs of live processes whose environment carries ``tag`` (ours only)."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    if sys.platform.startswith("linux"):
        return _find_tagged_proc(needle)
    return _find_tagged_psutil(tag)


def _find_tagged_proc(needle: bytes) -> list[int]:
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle in handle.read():
                    found.append(int(name))
        except OSError:
            continue
    return [pid for pid in found if not is_zombie(pid)]


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


def _find_tagged_psutil(tag: str) -> list[int]:
    import psutil

    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.pid != os.getpid() and proc.environ().get(TAG_VARIABLE) == tag:
                found.append(proc.pid)
    return found


def _descendants(pid: int) -> list[int]:
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _signal_all(pgid: int | None, pids: set[int], sig: int) -> None:
    if pgid is not None:
        with contextlib.suppress(OSError):
            os.killpg(pgid, sig)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _alive(pids: set[int]) -> set[int]:
    import psutil

    alive = set()
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
    return alive


async def kill_tree(pid: int | None, tag: str, grace: float = 1.0) -> None:
    """TERM the group and every descendant, wait ``grace``, KILL, then KILL stragglers.

    ``pid`` is the root (also the process group id) while it has not been reaped; pass
    None once it has, so that a recycled PID is never signalled. Tagged processes are
    found by their environment, which also catches daemons that left the group.
    """
    targets = set(find_tagged(tag))
    if pid is not None:
        targets |= {pid, *_descendants(pid)}
    _signal_all(pid, targets, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        targets |= set(find_tagged(tag))
        if not _alive(targets):
            break
        await asyncio.sleep(0.05)
    for _round in range(3):
        targets = _alive(targets) | set(find_tagged(tag))
        if not targets:
            return
        _signal_all(pid, targets, signal.SIGKILL)
        await asyncio.sleep(0.05)
