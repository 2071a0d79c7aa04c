"""A seccomp filter that refuses hard links (``link``, ``linkat``) with ``EPERM``.

Landlock lets the sandbox create entries at the workspace's top level without letting it
write them (see :mod:`aiagent.infra.sandbox.landlock`). A hard link would undo that: in the
same folder it needs only the right to create, so ``ln README.md .claude`` would plant a
protected name with the content of a writable file. Refusing the two system calls closes
that path; tools that link (git's object store, pnpm, ccache) fall back to copying or
renaming. The filter checks the architecture first, so a 32-bit (``int 0x80``) or x32
call cannot slip past it.
"""

from __future__ import annotations

import ctypes
import errno
import platform

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
X32_BIT = 0x40000000
# audit architecture -> (link, linkat) system call numbers; 0 where the call does not exist
ARCH_X86_64, ARCH_I386, ARCH_AARCH64, ARCH_ARM = 0xC000003E, 0x40000003, 0xC00000B7, 0x40000028
LINK_CALLS = {ARCH_X86_64: (86, 265), ARCH_I386: (9, 303), ARCH_AARCH64: (0, 37), ARCH_ARM: (9, 330)}
MACHINES = {"x86_64": ARCH_X86_64, "amd64": ARCH_X86_64, "aarch64": ARCH_AARCH64, "arm64": ARCH_AARCH64}


class _Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Insn))]


def program() -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k): per architecture, its link calls answer EPERM."""
    deny = (RET_K, 0, 0, RET_ERRNO | errno.EPERM)
    insns: list[tuple[int, int, int, int]] = []
    for arch, calls in LINK_CALLS.items():
        body: list[tuple[int, int, int, int]] = [(LD_W_ABS, 0, 0, 0)]  # the call's number
        if arch == ARCH_X86_64:
            body += [(JGE_K, 0, 1, X32_BIT), deny]  # every x32 call: nothing here needs one
        for number in (c for c in calls if c):
            body += [(JEQ_K, 0, 1, number), deny]
        body.append((RET_K, 0, 0, RET_ALLOW))
        insns += [(LD_W_ABS, 0, 0, 4), (JEQ_K, 0, len(body), arch), *body]  # the architecture
    return [*insns, (RET_K, 0, 0, RET_ALLOW)]


def supported() -> bool:
    return platform.machine().lower() in MACHINES


def install() -> None:
    """Refuse hard links in this process and what it execs, for good (needs
    ``PR_SET_NO_NEW_PRIVS`` first). Raises OSError when the kernel refuses the filter."""
    insns = program()
    array = (_Insn * len(insns))(*(_Insn(*i) for i in insns))
    prog = _Prog(len(insns), array)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")
