"""macOS Seatbelt (``sandbox-exec``): writes only under the writable paths, and no network
unless allowed, never to the protected paths. Not exercised by the Linux test suite."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.infra.sandbox import SandboxInfo

if TYPE_CHECKING:
    from aiagent.infra.sandbox import SandboxInfo

SANDBOX_EXEC = "/usr/bin/sandbox-exec"


def profile(writable: list[Path], allow_network: bool, protected: Sequence[Path] = ()) -> str:
    paths = " ".join(f'(subpath "{_quote(p)}")' for p in writable)
    rules = ["(version 1)", "(allow default)", "(deny file-write*)",
             f'(allow file-write* {paths} (literal "/dev/null") (literal "/dev/tty")'
             ' (regex #"^/dev/fd/") (regex #"^/dev/ttys"))']
    if protected:  # the last matching rule wins
        rules.append("(deny file-write* " + " ".join(f'(subpath "{_quote(p)}")' for p in protected) + ")")
    if not allow_network:
        rules.append("(deny network*)")
        rules.append('(allow network* (local unix-socket) (remote unix-socket))')
    return "\n".join(rules)


def wrap(argv: list[str], writable: list[Path], allow_network: bool,
         protected: Sequence[Path] = ()) -> list[str]:
    # macOS temp folders live under /private; add the real paths too
    extra = [Path(os.path.realpath(p)) for p in writable]
    return [SANDBOX_EXEC, "-p", profile(list(dict.fromkeys([*writable, *extra])), allow_network,
                                        protected), *argv]


def probe() -> SandboxInfo | str:

    if sys.platform != "darwin":
        return "Seatbelt exists only on macOS"
    if not os.access(SANDBOX_EXEC, os.X_OK):
        return f"{SANDBOX_EXEC} is not available"
    return SandboxInfo("seatbelt", SANDBOX_EXEC, "full")


def _quote(path: Path) -> str:
    return str(path).replace("\\", "\\\\").replace('"', '\\"')
