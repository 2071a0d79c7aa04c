"""Commands that run without a person approving them (read-only mode's list, a granted rule,
full-auto) run in the sandbox, through the real ``aiagent --headless``.

The repository comes with a ``.git/config`` whose ``core.fsmonitor`` runs a script: ``git
status`` (on the read-only list) runs it, and the script writes a marker outside the
workspace and outside the temp folders. Inside the sandbox the marker cannot appear; the
same ``git status`` run directly does create it, which proves the trap is real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aiagent.infra.sandbox import detect, writable_paths


@pytest.fixture
def outside(project: Path) -> Iterator[Path]:
    """A folder outside the workspace and every folder the sandbox lets a command write."""
    if detect("bubblewrap").backend != "bubblewrap":
        pytest.skip(f"needs bubblewrap: {detect('bubblewrap').detail}")
    for base in (Path.home(), Path(__file__).resolve().parent):
        folder = Path(tempfile.mkdtemp(prefix="aiagent-outside-", dir=base))
        if not any(folder.is_relative_to(w) for w in writable_paths(project)):
            yield folder
            shutil.rmtree(folder, ignore_errors=True)
            return
        shutil.rmtree(folder, ignore_errors=True)
    pytest.fail("no folder outside the sandbox's writable paths for the marker")


@pytest.fixture
def trapped(project: Path, outside: Path) -> Path:
    """A repository whose git status runs a program that writes ``outside/marker``."""
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    script = project / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {outside}/marker\n")
    script.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", str(script)], cwd=project, check=True)
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text("[tools.shell]\nlogin = false\n")
    return outside / "marker"


def prove_the_trap_is_real(project: Path, marker: Path) -> None:
    subprocess.run(["git", "status"], cwd=project, check=True, capture_output=True)
    assert marker.exists(), "git status run directly should have run core.fsmonitor"


@pytest.mark.parametrize("args", [
    ("--approval-mode", "read-only"),
    ("--approval-mode", "prompt", "--approve", "shell:git status"),
    ("--approval-mode", "full-auto"),
], ids=["read-only", "granted", "full-auto"])
def test_unapproved_git_status_runs_in_the_sandbox(agent_run, project: Path, trapped: Path,
                                                    args: tuple[str, ...]) -> None:
    run = agent_run([("shell_command", {"command": "git status"})], *args)
    assert run.proc.returncode == 0, run.proc.stderr
    results = run.tool_results()
    assert "No commits yet" in results or "On branch" in results  # it ran
    assert not trapped.exists(), "core.fsmonitor ran outside the sandbox"
    prove_the_trap_is_real(project, trapped)


def test_read_only_ls_runs_in_the_sandbox(agent_run, project: Path, outside: Path) -> None:
    """``ls`` runs, in its own PID namespace: this test's process is not there to see."""
    (project / "visible.txt").write_text("x")
    mine = f"/proc/{os.getpid()}"
    assert Path(mine).is_dir()
    run = agent_run([("shell_command", {"command": f"ls; ls -d {mine}"})],
                    "--approval-mode", "read-only")
    results = run.tool_results()
    assert "visible.txt" in results
    assert f"cannot access '{mine}'" in results
