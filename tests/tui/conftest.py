"""Fixtures for the terminal UI tests: a private tmux server, a project folder, and the
environment for the real ``aiagent`` (own HOME and XDG folders, FakeLLM's address)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmuxdriver import Tmux, available

PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV")


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    if not available():
        pytest.skip("tmux is not installed (apt-get install -y tmux) — terminal tests skipped")
    driver = Tmux()
    try:
        yield driver
    finally:
        driver.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def ui_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    env = {k: os.environ[k] for k in PASS_THROUGH if k in os.environ}
    env.setdefault("LANG", "C.UTF-8")
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), TERM="xterm-256color",
               SHELL="/bin/sh")
    return env
