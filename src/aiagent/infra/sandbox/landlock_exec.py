"""``python -m aiagent.infra.sandbox.landlock_exec [--write PATH]... [--protect PATH]... [--network]
-- COMMAND...``: restrict this process with Landlock, drop every capability, start a new
session (no ``TIOCSTI`` into the caller's terminal), then become COMMAND."""

from __future__ import annotations

import contextlib
import os
import sys

from aiagent.infra.sandbox.landlock import drop_capabilities, restrict


def _options(args: list[str]) -> tuple[list[str], list[str], bool] | str:
    writable: list[str] = []
    protected: list[str] = []
    network = False
    while args and args[0] != "--":
        option = args.pop(0)
        if option == "--write" and args:
            writable.append(args.pop(0))
        elif option == "--protect" and args:
            protected.append(args.pop(0))
        elif option == "--network":
            network = True
        else:
            return f"unknown option {option!r}"
    return writable, protected, network


def main(args: list[str]) -> int:
    parsed = _options(args)
    if isinstance(parsed, str):
        print(f"landlock_exec: {parsed}", file=sys.stderr)
        return 2
    writable, protected, network = parsed
    command = args[1:]
    if not command:
        print("landlock_exec: no command given after --", file=sys.stderr)
        return 2

    try:
        restrict(writable, network, protected)
        drop_capabilities()
    except OSError as exc:
        print(f"aiagent sandbox: cannot apply Landlock: {exc}", file=sys.stderr)
        return 126
    with contextlib.suppress(OSError):  # already a session leader (the shell tools start one)
        os.setsid()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"aiagent sandbox: {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
