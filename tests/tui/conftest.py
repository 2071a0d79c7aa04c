"""Fixtures for the terminal UI tests: a private tmux server, a project folder, and the
environment for the real ``aiagent`` (own HOME and XDG folders, FakeLLM's address)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tmuxdriver import Tmux, available, ui_environment


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
    return ui_environment(tmp_path / "home")
