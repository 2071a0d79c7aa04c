"""Fixtures of the ``aiagent mcp serve`` tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from servekit import server_env


@pytest.fixture
def env(clean_env: dict[str, str]) -> dict[str, str]:
    return server_env(clean_env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "app.log").write_text(
        "2024-05-01 10:00:00 INFO service started\n"
        "2024-05-01 10:00:01 ERROR connection refused to db:5432\n"
        "2024-05-01 10:00:02 ERROR connection refused to db:5432\n"
        "2024-05-01 10:00:03 INFO retrying\n")
    (folder / "settings.py").write_text('AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n'
                                        "import os\nos.system('ls ' + input())\n")
    (folder / "util.py").write_text('def add(a, b):\n    """Sum."""\n    return a + b\n')
    return folder
