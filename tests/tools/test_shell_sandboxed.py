"""Shell tools run inside the sandbox when the settings enable it (full-auto mode).

Temp folders stay writable in the sandbox, so "outside" is a file in the home folder."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tool_harness import Harness

from aiagent.sandbox import detect


def _sandbox_settings() -> dict[str, object]:
    info = detect("auto")
    if not info.available:
        pytest.skip(f"no sandbox on this machine: {info.detail}")
    return {"enabled": True, "backend": info.backend, "network": False, "writable": []}


@pytest.mark.parametrize("tool", ["shell_command", "exec_command"])
def test_writes_outside_the_workspace_fail_inside_the_sandbox(ws: Harness, tool: str) -> None:
    outside = Path.home() / f".aiagent-sandbox-test-{uuid.uuid4().hex}"
    command = f"echo inside > {ws.root}/in.txt; echo x > {outside}; echo done"
    args = {"command": command} if tool == "shell_command" else {"cmd": command, "yield_time_ms": 5000}
    try:
        ws.run(tool, args, sandbox=_sandbox_settings())
        assert (ws.root / "in.txt").read_text() == "inside\n"
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)


def test_without_the_sandbox_the_same_write_succeeds(ws: Harness) -> None:
    outside = Path.home() / f".aiagent-sandbox-test-{uuid.uuid4().hex}"
    try:
        ws.ok("shell_command", {"command": f"echo x > {outside}"})
        assert outside.exists()
    finally:
        outside.unlink(missing_ok=True)
