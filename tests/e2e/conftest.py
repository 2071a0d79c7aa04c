"""Shared by the end-to-end modules: a project folder with one small file (modules that need
another project define their own ``project`` fixture, which wins over this one)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello world\n")
    return folder
