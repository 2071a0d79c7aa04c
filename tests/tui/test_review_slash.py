"""`/review` in the terminal UI: the code review's static part on the working tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lineapp import run_app


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_review_shows_findings_on_the_changed_lines(ui_env: dict[str, str], project: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _git(project, "init", "-q")
    (project / "run.py").write_text("def go(cmd):\n    return cmd\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "base")
    (project / "run.py").write_text(
        "import os\n\n\ndef go(cmd):\n    os.system(\"ls \" + cmd)\n    return cmd\n")
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    code, out = run_app(["/review", "/quit"], env, project, monkeypatch)
    assert code == 0
    assert "aiagent code review: the working tree" in out
    assert "OS command built from dynamic input" in out and "run.py:5" in out


def test_review_outside_a_repository_says_so(ui_env: dict[str, str], project: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    code, out = run_app(["/review", "/quit"], env, project, monkeypatch)
    assert code == 0 and "not a git repository" in out
