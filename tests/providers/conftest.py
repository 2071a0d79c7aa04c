"""The ``provider_name`` fixture: a test runs once per provider."""

from __future__ import annotations

import pytest

PROVIDER_NAMES = ("anthropic", "ollama", "openai")


@pytest.fixture(params=PROVIDER_NAMES)
def provider_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)
