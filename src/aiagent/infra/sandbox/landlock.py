"""Landlock (Linux ≥ 5.13), through the kernel's system calls (no extra package).

The sandboxed command is started through ``python -m aiagent.infra.sandbox.landlock_exec``,
which restricts itself, drops every capability, starts a new session and then ``exec``s
the command: writing, creating, removing and renaming are allowed only beneath the
writable paths, and never beneath the protected ones (reading and running are not
restricted); with ABI 4 or later, TCP connect and bind are refused unless the network is
allowed; with ABI 6 or later, the command cannot signal processes outside its Landlock
domain nor connect to abstract Unix sockets created outside it. Landlock cannot block UDP
or named Unix sockets, hide other processes or give a private /tmp; bubblewrap can.

Landlock grants are additive beneath a path and cannot be taken back below it, so a
protected entry inside a writable folder is left out by granting each sibling instead of
the folder (:func:`grant_roots`); the folder itself gets only :data:`CREATE_ONLY`: new
files and folders can be made in it, empty, and are writable from the next command on.
That right reaches into the protected entry too, where it can only add empty files and
folders. A hard link in the same folder needs no more than that right, so hard links are
refused by a seccomp filter (:mod:`aiagent.infra.sandbox.nolink`) whenever a folder is split.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.infra.sandbox import SandboxInfo, nolink

if TYPE_CHECKING:
    from aiagent.infra.sandbox import SandboxInfo

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # same on x86_64 and arm64
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
CAPABILITY_VERSION_3 = 0x20080522

WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (
    1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12)
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
FILE_ONLY = WRITE_FILE | TRUNCATE  # rights that apply to a file (not a directory)
# rights on a folder holding a protected entry: they reach into that entry too, where
# they can make only empty files and folders (no write, removal, rename, link or symlink)
CREATE_ONLY = MAKE_DIR | MAKE_REG
DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/full")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The Landlock ABI the kernel offers; 0 when there is none (or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        result = _libc().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                                 ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(0, int(result))


def handled_fs(abi: int) -> int:
    rights = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG
              | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM)
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


def scopes(abi: int, allow_network: bool) -> int:
    """What the domain is scoped to (ABI 6): signals always, abstract Unix sockets unless
    the network is allowed (bubblewrap's network namespace hides them the same way)."""
    if abi < 6:
        return 0
    return SCOPE_SIGNAL | (0 if allow_network else SCOPE_ABSTRACT_UNIX_SOCKET)


def _ruleset_size(abi: int) -> int:
    fields = 3 if abi >= 6 else 2 if abi >= 4 else 1
    return fields * ctypes.sizeof(ctypes.c_uint64)


def restrict(writable: Sequence[str], allow_network: bool, protected: Sequence[str] = ()) -> None:
    """Restrict this process (and what it execs) for good. Raises OSError on failure."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    libc, fs = _libc(), handled_fs(abi)
    net = 0 if allow_network or abi < 4 else NET_BIND_TCP | NET_CONNECT_TCP
    attr = _RulesetAttr(fs, net, scopes(abi, allow_network))
    ruleset = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(_ruleset_size(abi)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        full, split = _grants(writable, protected)
        for path in [*full, *DEVICE_FILES]:
            _allow(libc, ruleset, str(path), fs)
        for path in split:
            _allow(libc, ruleset, str(path), CREATE_ONLY)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
        if split:
            _refuse_hard_links()
        if libc.syscall(SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


def grant_roots(writable: Iterable[str], protected: Iterable[str]) -> list[Path]:
    """The folders and files to grant writes beneath: each writable path, or, when a
    protected path lies inside it, each of its entries but the protected one (recursively
    down to it; symbolic links are skipped, their targets have rules of their own)."""
    return _grants(writable, protected)[0]


def create_only_roots(writable: Iterable[str], protected: Iterable[str]) -> list[Path]:
    """The folders split by :func:`grant_roots` (those holding a protected entry): they get
    :data:`CREATE_ONLY`, so new entries can be made in them but not written in the same
    command (and nothing in them removed or renamed)."""
    return _grants(writable, protected)[1]


def _grants(writable: Iterable[str], protected: Iterable[str]) -> tuple[list[Path], list[Path]]:
    frozen = [Path(p) for p in protected]
    found: list[Path] = []
    split: list[Path] = []
    for root in writable:
        _split(Path(root), frozen, found, split)
    return found, split


def _split(root: Path, frozen: list[Path], found: list[Path], split: list[Path]) -> None:
    if any(root.is_relative_to(p) for p in frozen):
        return
    if not any(p.is_relative_to(root) for p in frozen):
        found.append(root)
        return
    split.append(root)
    with os.scandir(root) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if not entry.is_symlink():
                _split(Path(entry.path), frozen, found, split)


def _refuse_hard_links() -> None:

    if not nolink.supported():
        raise OSError("cannot refuse hard links on this architecture (seccomp filter for "
                      "x86_64 and arm64 only); protect no entry or use bubblewrap")
    nolink.install()


def drop_capabilities() -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable sets, so that
    not even root regains a capability on ``exec``. Raises OSError when root keeps one."""
    libc = _libc()
    for cap in range(_last_capability() + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # fails without CAP_SETPCAP: checked below
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    if os.geteuid() == 0 and _status_field("CapBnd") != 0:
        raise OSError("cannot empty the capability bounding set (root would regain them on exec)")


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63


def _status_field(name: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return int(line.split()[1], 16)
    return 0


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, fs: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist needs no rule
    try:
        rights = fs if os.path.isdir(path) else fs & FILE_ONLY
        rule = _PathBeneathAttr(rights, fd)
        if libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule),
                        ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)


def wrap(argv: list[str], writable: list[Path], allow_network: bool,
         protected: Sequence[Path] = ()) -> list[str]:
    args = [sys.executable, "-m", "aiagent.infra.sandbox.landlock_exec"]
    for path in writable:
        args += ["--write", str(path)]
    for path in protected:
        args += ["--protect", str(path)]
    if allow_network:
        args.append("--network")
    return [*args, "--", *argv]


def not_enforced(abi: int) -> tuple[str, ...]:
    """What Landlock at this ABI does not enforce (bubblewrap does), in plain words."""
    notes = ["other processes stay visible in /proc (no PID namespace)",
             "the host's temp folders are shared and writable",
             "UDP and named Unix sockets are not blocked"]
    if abi < 4:
        notes.append(f"TCP is not blocked (Landlock ABI {abi} < 4)")
    if abi < 6:
        notes.append(f"signals to processes outside the sandbox and abstract Unix sockets are "
                     f"not blocked (Landlock ABI {abi} < 6, needs Linux 6.12)")
    return tuple(notes)


def probe() -> SandboxInfo | str:

    abi = abi_version()
    if abi < 1:
        return "the kernel offers no Landlock (Linux 5.13 or later, enabled at boot)"
    network = "tcp" if abi >= 4 else "none"
    scoped = "; signals and abstract sockets scoped" if abi >= 6 else ""
    return SandboxInfo("landlock", f"Landlock ABI {abi}{scoped}", network, not_enforced(abi))
