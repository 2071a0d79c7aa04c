"""`aiagent tools run` prints exactly ToolResult.content (real CLI, real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

AIAGENT = Path(sys.executable).parent / "aiagent"
pytestmark = pytest.mark.skipif(not AIAGENT.exists(), reason="aiagent console script not installed")


def run(cwd: Path, name: str, args: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(AIAGENT), "tools", "run", name, "--args", json.dumps(args), "--cwd", str(cwd)],
        capture_output=True, text=True, timeout=60,
    )


def test_read_file_and_list_dir(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    done = run(tmp_path, "read_file", {"file_path": "f.txt", "offset": 2})
    assert (done.returncode, done.stdout) == (0, "L2: beta\n")
    listing = run(tmp_path, "list_dir", {"dir_path": str(tmp_path)})
    assert listing.stdout.splitlines()[1:] == ["f.txt"]


def test_shell_command_and_error_exit(tmp_path: Path) -> None:
    done = run(tmp_path, "shell_command", {"command": "echo hi", "login": False})
    assert done.returncode == 0
    assert done.stdout.startswith("Exit code: 0\nWall time: ") and done.stdout.endswith("Output:\nhi\n")
    bad = run(tmp_path, "read_file", {"file_path": "../outside"})
    assert bad.returncode == 1 and bad.stdout.startswith("access denied:")


def test_apply_patch_then_grep(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: src/x.py\n+value = 42\n*** End Patch"
    done = run(tmp_path, "apply_patch", {"input": patch})
    assert done.stdout == "Success. Updated the following files:\nA src/x.py\n"
    found = run(tmp_path, "grep_files", {"pattern": "value"})
    assert found.stdout.strip().endswith("src/x.py")
