"""The harness's exercises are inputs, not tests; ``fake_env`` points a run at FakeLLM."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from aiagent.testing import FakeLLM

# The exercises are the harness's input, not tests of this project: their *_test.py files
# import stubs that fail until an agent solves them.
collect_ignore_glob = ["exercises/*"]


@pytest.fixture
def fake_env(clean_env: dict[str, str]) -> Callable[[FakeLLM], dict[str, str]]:
    """The environment of a harness run whose model is ``fake``."""
    return lambda fake: {**clean_env, "OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test"}
