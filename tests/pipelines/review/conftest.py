"""Fixtures for the code review tests: a real git repository, fake GitHub/GitLab APIs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from review_helpers import BASE_APP, FEATURE_APP, FakeGitHub, FakeGitLab, git, served


@pytest.fixture(scope="session")
def repo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main: app.py; feature (checked out): app.py changed inside total(). Built once per
    worker; each test gets its own copy (``repo``)."""
    root = tmp_path_factory.mktemp("review-template") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text(BASE_APP)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "app.py").write_text(FEATURE_APP)
    git(root, "commit", "-qam", "feature")
    return root


@pytest.fixture
def repo(repo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the template repository (its tests change and commit to it)."""
    return Path(shutil.copytree(repo_template, tmp_path / "repo", symlinks=True))


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    yield from served(FakeGitHub())


@pytest.fixture
def gitlab() -> Iterator[FakeGitLab]:
    yield from served(FakeGitLab())
