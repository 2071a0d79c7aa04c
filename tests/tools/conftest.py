"""Fixtures for the tool tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_harness import Harness


@pytest.fixture()
def ws(tmp_path: Path) -> Harness:
    root = tmp_path / "ws"
    root.mkdir()
    return Harness(root)
