"""Shell tools run inside the sandbox when the settings enable it (full-auto mode).

"Outside" is a file in the home folder (Landlock shares the temp folders). The deeper
proofs, run inside each backend, are in tests/sandbox/."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tool_harness import Harness

from aiagent.infra.sandbox import detect


def _sandbox_settings() -> dict[str, object]:
    info = detect("auto")
    if not info.available:
        pytest.skip(f"no sandbox on this machine: {info.detail}")
    return {"enabled": True, "backend": info.backend, "network": False, "writable": [],
            "protected": [".git", ".agent"]}


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


@pytest.mark.parametrize("tool", ["shell_command", "exec_command"])
def test_the_workspace_git_folder_stays_read_only_inside_the_sandbox(ws: Harness, tool: str) -> None:
    (ws.root / ".git").mkdir()
    (ws.root / ".git" / "config").write_text("[core]\n")
    (ws.root / "src").mkdir()
    command = "echo '\tfsmonitor = touch pwned' >> .git/config; echo ok > src/x; echo done"
    args = {"command": command} if tool == "shell_command" else {"cmd": command, "yield_time_ms": 5000}
    ws.run(tool, args, sandbox=_sandbox_settings())
    assert (ws.root / ".git" / "config").read_text() == "[core]\n"
    assert (ws.root / "src" / "x").read_text() == "ok\n"


def test_landlock_says_why_a_new_top_level_file_cannot_be_written(ws: Harness) -> None:
    """Under Landlock a new top-level entry is writable from the next command on: the
    result says so when a command fails on one, and the next command writes it."""
    info = detect("landlock")
    if not info.available:
        pytest.skip(f"needs the landlock sandbox: {info.detail}")
    (ws.root / ".git").mkdir()
    box = {"enabled": True, "backend": "landlock", "network": False, "writable": [],
           "protected": [".git", ".agent"]}
    first = ws.run("shell_command", {"command": "echo '{}' > package.json"}, sandbox=box)
    assert "Permission denied" in first.content
    assert "new files and folders at the workspace's top level" in first.content
    assert "writable from the next command on" in first.content
    ws.ctx.notes.clear()
    second = ws.run("shell_command", {"command": "echo '{}' > package.json && echo written"}, sandbox=box)
    assert "written" in second.content and "top level" not in second.content
    assert (ws.root / "package.json").read_text() == "{}\n"
