"""Fixtures for the code review tests: a real git repository, fake GitHub/GitLab APIs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from review_helpers import BASE_APP, FEATURE_APP, FakeGitHub, FakeGitLab, Recorder, git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: app.py; feature (checked out): app.py changed inside total()."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text(BASE_APP)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "app.py").write_text(FEATURE_APP)
    git(root, "commit", "-qam", "feature")
    return root


def _serve(server: Recorder) -> Iterator[Recorder]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    yield from _serve(FakeGitHub())


@pytest.fixture
def gitlab() -> Iterator[FakeGitLab]:
    yield from _serve(FakeGitLab())
