"""``python -m aiagent.sandbox.landlock_exec [--write PATH]... [--network] -- COMMAND...``:
restrict this process with Landlock, then become COMMAND."""

from __future__ import annotations

import os
import sys


def main(args: list[str]) -> int:
    writable: list[str] = []
    network = False
    while args and args[0] != "--":
        option = args.pop(0)
        if option == "--write" and args:
            writable.append(args.pop(0))
        elif option == "--network":
            network = True
        else:
            print(f"landlock_exec: unknown option {option!r}", file=sys.stderr)
            return 2
    command = args[1:]
    if not command:
        print("landlock_exec: no command given after --", file=sys.stderr)
        return 2
    from aiagent.sandbox.landlock import restrict

    try:
        restrict(writable, network)
    except OSError as exc:
        print(f"aiagent sandbox: cannot apply Landlock: {exc}", file=sys.stderr)
        return 126
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"aiagent sandbox: {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
