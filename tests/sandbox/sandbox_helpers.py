"""Helpers for the sandbox tests: a real git workspace and a command run inside the real
sandbox (the real ``sandbox_argv``: real bwrap, real Landlock)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from aiagent.infra import sandbox

CANARY = "sk-canary-4f1d2b7e9a"


@dataclass
class Box:
    backend: str
    workspace: Path

    def run(self, script: str, *, network: bool = False) -> subprocess.CompletedProcess[str]:
        """``bash -c script`` inside the sandbox, in the workspace."""
        argv = sandbox.sandbox_argv(["bash", "-c", script], self.workspace, network,
                                    backend=self.backend)
        return subprocess.run(argv, cwd=self.workspace, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)

    def ok(self, script: str, **kwargs: bool) -> str:
        done = self.run(script, **kwargs)
        assert done.returncode == 0, f"{script!r} failed: {done.stderr}"
        return done.stdout


def need(backend: str) -> sandbox.SandboxInfo:
    sandbox.detect.cache_clear()
    info = sandbox.detect(backend)
    if not info.available:
        pytest.skip(f"needs the {backend} sandbox: {info.detail}")
    return info


def git_workspace(root: Path) -> Path:
    """A real repository with a commit, a source folder and an ``.agent`` folder."""
    root.mkdir()
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".agent").mkdir()
    (root / ".agent" / "config.toml").write_text("# agent config\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root
