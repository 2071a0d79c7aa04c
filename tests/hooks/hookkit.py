"""What the user-hook tests share besides fixtures: config text for a hook."""

from __future__ import annotations

import json
import shlex
import sys

PY = shlex.quote(sys.executable)


def toml_str(text: str) -> str:
    """``text`` as a TOML basic string."""
    return json.dumps(text)


def hook(event: str, command: str, matcher: str | None = None, timeout: float | None = None) -> str:
    """One ``[[hooks.EVENT]]`` table."""
    lines = [f"[[hooks.{event}]]", f"command = {toml_str(command)}"]
    if matcher is not None:
        lines.append(f"matcher = {toml_str(matcher)}")
    if timeout is not None:
        lines.append(f"timeout = {timeout}")
    return "\n".join(lines) + "\n"
