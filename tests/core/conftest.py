from __future__ import annotations

import pytest


@pytest.fixture(params=["anthropic", "openai", "ollama"])
def provider_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)
