"""Fixtures for the CI action tests: the fake GitHub/GitLab APIs of the review tests on
loopback, and a pull request ready for the action (ci_helpers.ActionCase)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ci_helpers import ActionCase
from review_helpers import FakeGitHub, FakeGitLab, Recorder, served


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    yield from served(FakeGitHub())  # type: ignore[misc]


@pytest.fixture
def gitlab() -> Iterator[FakeGitLab]:
    yield from served(FakeGitLab())  # type: ignore[misc]


@pytest.fixture
def serve() -> Iterator[Callable[[Recorder], Recorder]]:
    """Start any Recorder (a refusing API) for the test."""
    running: list[Recorder] = []

    def start(server: Recorder) -> Recorder:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        running.append(server)
        return server

    yield start
    for server in running:
        server.shutdown()
        server.server_close()


@pytest.fixture
def case(tmp_path: Path, clean_env: dict[str, str], github: FakeGitHub) -> ActionCase:
    return ActionCase(tmp_path, clean_env, github)
