"""bubblewrap: the whole file system read-only; a private ``/tmp``; the workspace and the
extra writable paths bound read-write on top (its protected entries, such as ``.git``,
bound read-only again); a fresh ``/dev`` and ``/proc``; its own user, PID, IPC, UTS and
cgroup namespaces; no capabilities; a new session; no network unless allowed.

As root the sandbox maps the caller to uid/gid 65534 ("nobody") inside its user
namespace: on the host it is still uid 0 (files it writes belong to root), but it holds no
capability and programs that test ``getuid() == 0`` take their unprivileged path.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import aiagent
from aiagent.infra.sandbox import SandboxInfo

if TYPE_CHECKING:
    from aiagent.infra.sandbox import SandboxInfo

PROBE_TIMEOUT = 5.0
ROOT_INSIDE_ID = "65534"  # what uid/gid 0 becomes inside the sandbox
PRIVATE_TEMPS = ("/tmp", "/var/tmp")
USERNS_REFUSED = ("namespace", "operation not permitted", "permission denied", "no space left")


def namespace_args() -> list[str]:
    """Namespaces and privileges: its own user (no nested ones where bwrap can forbid
    them), PID, IPC, UTS and cgroup namespaces, every capability dropped, a new session."""
    args = ["--unshare-user"]
    if os.geteuid() == 0:
        args += ["--uid", ROOT_INSIDE_ID, "--gid", ROOT_INSIDE_ID]
    if _version() >= (0, 8, 0):
        args.append("--disable-userns")
    return [*args, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--cap-drop", "ALL", "--new-session", "--die-with-parent"]


def base_args(allow_network: bool) -> list[str]:
    """Everything but the writable binds: read-only root, fresh /dev and /proc, private
    temp folders, the namespaces."""
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for temp in PRIVATE_TEMPS:
        args += ["--tmpfs", temp]
    args += ["--setenv", "TMPDIR", "/tmp", *namespace_args()]
    if not allow_network:
        args.append("--unshare-net")
    return args


def runtime_paths() -> list[str]:
    """Folders the interpreter aiagent runs on needs: the venv, the base installation, and
    where aiagent itself is imported from (a checkout or venv may live under /tmp)."""

    found = {
        os.path.realpath(sys.prefix),
        os.path.realpath(sys.base_prefix),
        os.path.dirname(os.path.realpath(sys.executable)),
        os.path.dirname(os.path.dirname(os.path.realpath(aiagent.__file__))),
    }
    return sorted(p for p in found if os.path.isdir(p))


def hidden_programs(path_variable: str | None = None) -> list[str]:
    """Folders that the private temp folders would hide but a command needs to see, read
    only: the interpreter's (above) and the ``PATH`` entries that lie under a temp folder."""
    entries = (path_variable if path_variable is not None else os.environ.get("PATH", ""))
    found = set(runtime_paths())
    found.update(os.path.realpath(e) for e in entries.split(os.pathsep) if e)
    temps = tuple(os.path.realpath(t) for t in PRIVATE_TEMPS)
    return sorted(p for p in found if os.path.isdir(p)
                  and any(p == t or p.startswith(t + os.sep) for t in temps))


def wrap(argv: list[str], writable: list[Path], allow_network: bool,
         read_only: Sequence[Path] = ()) -> list[str]:
    """``argv`` in the sandbox. Programs the private temp folders would hide are bound back
    read-only; ``writable`` are bound after them (so a workspace under /tmp stays visible
    and writable), ``read_only`` last (so they win)."""
    binds: list[str] = []
    for folder in hidden_programs():
        binds += ["--ro-bind", folder, folder]
    for path in writable:
        binds += ["--bind", str(path), str(path)]
    for path in read_only:
        binds += ["--ro-bind", str(path), str(path)]
    return [executable(), *base_args(allow_network), *binds, "--", *argv]


def executable() -> str:
    return shutil.which("bwrap") or "bwrap"


@cache
def _version() -> tuple[int, ...]:
    try:
        out = subprocess.run([executable(), "--version"], capture_output=True, text=True,
                             timeout=PROBE_TIMEOUT, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return (0,)
    found = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    return tuple(int(n or 0) for n in found.groups()) if found else (0,)


def probe() -> SandboxInfo | str:
    """Info when the hardened sandbox starts here, else why not (user namespaces refused by
    the kernel or its policy are named as such, so callers fall back to Landlock)."""

    exe = shutil.which("bwrap")
    if exe is None:
        return "the bwrap program is not installed"
    try:
        done = subprocess.run([exe, *base_args(False), "--", "true"], capture_output=True,
                              text=True, timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run: {exc}"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        if any(word in reason.lower() for word in USERNS_REFUSED):
            return f"this machine refuses user namespaces to bwrap ({reason})"
        return f"bwrap is installed but cannot create a sandbox here ({reason})"
    version = ".".join(map(str, _version()))
    return SandboxInfo("bubblewrap", f"bubblewrap {version} at {exe}", "full")
