"""providers/structured.ask_json against FakeLLM over real HTTP, for every wire format."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from provider_harness import make_config

from aiagent.contracts.providers import ProviderError
from aiagent.infra.providers import create_provider
from aiagent.infra.providers.structured import (
    StructuredOutputError,
    StructuredResult,
    ask_json,
    extract_json,
)
from aiagent.testing import FakeLLM, Turn

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["items"],
    "additionalProperties": False,
    "properties": {"items": {"type": "array", "maxItems": 3,
                             "items": {"type": "string", "maxLength": 20}}},
}
GOOD = {"items": ["a", "b"]}


def ask(name: str, fake: FakeLLM, **kwargs: Any) -> StructuredResult:
    async def go() -> StructuredResult:
        provider: Any = create_provider(name, make_config(name, fake))
        try:
            return await ask_json(provider, "test-model", system="Answer in JSON.",
                                  prompt="List things.", schema=SCHEMA, **kwargs)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def sent_texts(request: dict[str, Any]) -> str:
    return json.dumps(request["json"])


def test_valid_answer_first_time(provider_name: str) -> None:
    with FakeLLM([Turn(text=json.dumps(GOOD), usage=(100, 20))]) as fake:
        result = ask(provider_name, fake)
        assert len(fake.requests) == 1
    assert result.value == GOOD and result.attempts == 1
    assert (result.usage.input_tokens + result.usage.cache_read_tokens,
            result.usage.output_tokens) == (100, 20)


def test_fenced_block_inside_prose(provider_name: str) -> None:
    text = "Here you go:\n```json\n" + json.dumps(GOOD) + "\n```\nHope that helps {really}."
    with FakeLLM([Turn(text=text)]) as fake:
        assert ask(provider_name, fake).value == GOOD


def test_invalid_then_valid_sends_the_problem_back(provider_name: str) -> None:
    script = [Turn(text='{"items": ["a", 7]}', usage=(50, 5)),
              Turn(text=json.dumps(GOOD), usage=(80, 6))]
    with FakeLLM(script) as fake:
        result = ask(provider_name, fake)
        second = sent_texts(fake.requests[1])
    assert result.value == GOOD and result.attempts == 2
    assert result.usage.output_tokens == 11  # both answers count
    assert "items[1]: 7 is not of type 'string'" in second
    assert '{\\"items\\": [\\"a\\", 7]}' in second  # the bad answer is in the history


def test_always_invalid_raises_after_bounded_reasks(provider_name: str) -> None:
    script = [Turn(text="I cannot do JSON.")] * 5
    with FakeLLM(script) as fake:
        with pytest.raises(StructuredOutputError) as info:
            ask(provider_name, fake, max_reasks=2)
        assert len(fake.requests) == 3 and fake.remaining == 2
    err = info.value
    assert err.attempts == 3 and err.usage.output_tokens == 15
    assert err.problems[0] == "no JSON value found in the answer"
    assert "after 3 attempt(s)" in str(err)


def test_huge_answer_is_cut_and_reasked(provider_name: str) -> None:
    huge = '{"items": ["' + "x" * 10_000_000 + '"]}'
    with FakeLLM([Turn(text=huge, text_chunks=200), Turn(text=json.dumps(GOOD))]) as fake:
        result = ask(provider_name, fake, max_output_chars=50_000)
        reask = sent_texts(fake.requests[1])
    assert result.value == GOOD and result.attempts == 2
    assert "longer than 50000 characters" in reask and len(reask) < 20_000


def test_long_bad_value_gives_a_short_problem() -> None:
    from aiagent.infra.providers.structured import _check, _validator

    value, problem = _check('{"items": ["' + "y" * 100_000 + '"]}', _validator(SCHEMA), 10**6)
    assert value is None and problem is not None and len(problem) < 400
    assert problem.startswith("items[0]: ")


def test_provider_errors_propagate(provider_name: str) -> None:
    with FakeLLM([Turn(status=401, error_message="bad key")]) as fake, \
            pytest.raises(ProviderError):
        ask(provider_name, fake)


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": 1}', {"a": 1}),
    ('  \n{"a": 1}\n', {"a": 1}),
    ('Sure! {"a": {"b": [1, 2]}} and that is all.', {"a": {"b": [1, 2]}}),
    ("```\n[1, 2]\n```", [1, 2]),
    ("text {not json} then {\"ok\": true}", {"ok": True}),
    ("no json here", None),
    ("[" * 100_000, None),  # deep nesting is not a crash
    ('"just a string"', None),
])
def test_extract_json(text: str, expected: Any) -> None:
    assert extract_json(text) == expected
