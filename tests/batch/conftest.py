"""Repositories for the batch tests: local folders and local bare git "remotes" (file://)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
VULNERABLE = 'import os\n\ndef run(x):\n    os.system("ls " + x)\n\nAWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n'
LOG = "".join(f"2024-05-01 10:00:{i % 60:02d} ERROR db connection refused to host-{i % 3}\n"
              if i % 4 == 0 else f"2024-05-01 10:00:{i % 60:02d} INFO request {i} served in {i}ms\n"
              for i in range(200))


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout


def make_folder(path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    return path


def make_remote(tmp: Path, name: str, files: dict[str, str], branch: str = "main",
                links: dict[str, str] | None = None) -> str:
    """A bare repository at tmp/name.git with one commit of ``files`` (and ``links``:
    symlinks) on ``branch``; its file:// URL."""
    work = make_folder(tmp / f"{name}-work", files)
    for link, target in (links or {}).items():
        os.symlink(target, work / link)
    git(work, "init", "-q", "-b", branch)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "first")
    bare = tmp / f"{name}.git"
    git(tmp, "clone", "-q", "--bare", str(work), str(bare))
    return f"file://{bare}"


def run_cli(*args: str, python: str | None = None, timeout: float = 300,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": SRC, "CI": "true", **(env or {})}
    return subprocess.run([python or sys.executable, "-m", "aiagent", *args], capture_output=True,
                          text=True, timeout=timeout, env=environ, check=False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user config folder of the test's own (no trusted folders, no cache shared)."""
    folder = tmp_path / "home"
    folder.mkdir()
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(folder / var.lower()))
    return folder
