"""The served fixture: one real ``aiagent serve`` per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.web.serving import Served, start_server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from start_server(tmp_path_factory.mktemp("serve"))
