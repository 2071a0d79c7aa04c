"""Fixtures for the Apple tool tests: a PATH holding only our fakes before the system's."""

from __future__ import annotations

from pathlib import Path

import pytest
from apple_harness import path_with


@pytest.fixture()
def fake_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", path_with(bin_dir))
    return bin_dir
