"""bubblewrap: the whole file system read-only, the writable paths bound read-write, a
fresh /dev and /proc, its own PID namespace, and no network namespace access unless allowed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.sandbox import SandboxInfo

PROBE_TIMEOUT = 5.0


def base_args(allow_network: bool) -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--unshare-pid", "--die-with-parent"]
    if not allow_network:
        args.append("--unshare-net")
    return args


def wrap(argv: list[str], writable: list[Path], allow_network: bool) -> list[str]:
    binds: list[str] = []
    for path in writable:
        binds += ["--bind", str(path), str(path)]
    return [shutil.which("bwrap") or "bwrap", *base_args(allow_network), *binds, "--", *argv]


def probe() -> SandboxInfo | str:
    from aiagent.sandbox import SandboxInfo

    exe = shutil.which("bwrap")
    if exe is None:
        return "the bwrap program is not installed"
    try:
        done = subprocess.run([exe, *base_args(False), "--", "true"], capture_output=True,
                              text=True, timeout=PROBE_TIMEOUT, check=False)
        version = subprocess.run([exe, "--version"], capture_output=True, text=True,
                                 timeout=PROBE_TIMEOUT, check=False).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run: {exc}"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        return f"bwrap is installed but cannot create a sandbox here ({reason})"
    return SandboxInfo("bubblewrap", f"{version or 'bwrap'} at {exe}", "full")
