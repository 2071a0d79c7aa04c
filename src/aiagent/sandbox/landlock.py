"""Landlock (Linux ≥ 5.13), through the kernel's system calls (no extra package).

The sandboxed command is started through ``python -m aiagent.sandbox.landlock_exec``,
which restricts itself and then ``exec``s the command: writing, creating, removing and
renaming are allowed only beneath the writable paths (reading and running are not
restricted); with ABI 4 or later, TCP connect and bind are refused unless the network is
allowed. Landlock cannot block UDP or Unix sockets, which bubblewrap can.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiagent.sandbox import SandboxInfo

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # same on x86_64 and arm64
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (
    1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12)
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
FILE_ONLY = WRITE_FILE | TRUNCATE  # rights that apply to a file (not a directory)
DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/full")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64)]


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


def restrict(writable: list[str], allow_network: bool) -> None:
    """Restrict this process (and what it execs) for good. Raises OSError on failure."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    libc, fs = _libc(), handled_fs(abi)
    net = 0 if allow_network or abi < 4 else NET_BIND_TCP | NET_CONNECT_TCP
    attr = _RulesetAttr(fs, net)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 4 else ctypes.sizeof(ctypes.c_uint64)
    ruleset = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path in [*writable, *DEVICE_FILES]:
            _allow(libc, ruleset, path, fs)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
        if libc.syscall(SYS_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


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


def wrap(argv: list[str], writable: list[Path], allow_network: bool) -> list[str]:
    args = [sys.executable, "-m", "aiagent.sandbox.landlock_exec"]
    for path in writable:
        args += ["--write", str(path)]
    if allow_network:
        args.append("--network")
    return [*args, "--", *argv]


def probe() -> SandboxInfo | str:
    from aiagent.sandbox import SandboxInfo

    abi = abi_version()
    if abi < 1:
        return "the kernel offers no Landlock (Linux 5.13 or later, enabled at boot)"
    network = "tcp" if abi >= 4 else "none"
    return SandboxInfo("landlock", f"Landlock ABI {abi}", network)
