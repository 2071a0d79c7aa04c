"""Which models are sent images: the built-in table by longest name prefix, the setting
first, and an unknown model never."""

from __future__ import annotations

import pytest

from aiagent.infra.providers.vision import accepts_images


@pytest.mark.parametrize(("model", "expected"), [
    ("claude-sonnet-4-5", True), ("claude-3-5-haiku-latest", True), ("claude-2.1", False),
    ("gpt-4o-mini", True), ("gpt-4.1", True), ("gpt-4", False), ("gpt-4-turbo", True),
    ("o3-mini", False), ("o3", True), ("openrouter/openai/gpt-4o", True),
    ("llava:13b", True), ("llama3.2-vision", True), ("llama3.2", False), ("gemma3:1b", False),
    ("gemma3:12b", True), ("qwen2.5-coder", False), ("smollm2", False), ("test-model", False),
])
def test_table(model: str, expected: bool) -> None:
    assert accepts_images(model) is expected


def test_setting_wins() -> None:
    assert accepts_images("my-local-vlm", True) is True
    assert accepts_images("gpt-4o", False) is False
