"""Ask a model for one JSON value matching a JSON Schema, with a bounded number of re-asks.

The answer is untrusted: it is read through :meth:`Provider.stream` up to a size bound (a
longer answer is cut off and counts as invalid), the JSON is taken from the whole answer,
a fenced ```json block or the first value inside surrounding prose, then validated with
``jsonschema``. An invalid answer is sent back with what was wrong (a short, bounded
message) and the model answers again, at most ``max_reasks`` times; then
:class:`StructuredOutputError` is raised with the problems and the tokens spent.
Provider failures (:class:`~aiagent.contracts.providers.ProviderError`) propagate as they are.

    result = await ask_json(provider, model, system=..., prompt=..., schema=schema)
    result.value, result.usage, result.attempts
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from typing import Any

from aiagent.contracts.messages import Message, TextBlock, Usage
from aiagent.contracts.providers import (
    CompletionRequest,
    Provider,
    Restart,
    TextDelta,
    UsageReport,
)

MAX_REASKS = 2
MAX_OUTPUT_CHARS = 200_000  # one answer; beyond this the stream is dropped
ECHO_CHARS = 4_000  # how much of an invalid answer is sent back with the re-ask
PROBLEM_CHARS = 300  # one validation message (jsonschema quotes the bad value)
MAX_PROBLEMS = 5
MAX_CANDIDATES = 32  # `{` / `[` positions tried inside prose
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class StructuredResult:
    value: Any
    usage: Usage
    attempts: int


class StructuredOutputError(Exception):
    """The model gave no valid answer in ``attempts`` tries; ``problems`` says why (last first)."""

    def __init__(self, problems: list[str], attempts: int, usage: Usage | None = None) -> None:
        last = problems[0] if problems else "no answer"
        super().__init__(f"no valid JSON after {attempts} attempt(s): {last}")
        self.problems = problems
        self.attempts = attempts
        self.usage = usage or Usage()


class _TooLong(Exception):
    pass


async def ask_json(
    provider: Provider, model: str, *, system: str, prompt: str, schema: dict[str, Any],
    max_reasks: int = MAX_REASKS, max_tokens: int = 4096,
    max_output_chars: int = MAX_OUTPUT_CHARS,
) -> StructuredResult:
    """The validated value the model answered ``prompt`` with (see the module docstring)."""
    validator = _validator(schema)
    messages = [Message.user(prompt)]
    usage, problems = Usage(), list[str]()
    for attempt in range(1, max(0, max_reasks) + 2):
        request = CompletionRequest(model=model, system=system, messages=list(messages),
                                    max_tokens=max_tokens)
        text, spent = await _answer(provider, request, max_output_chars)
        usage = usage + spent
        value, problem = _check(text, validator, max_output_chars)
        if problem is None:
            return StructuredResult(value, usage, attempt)
        problems.insert(0, problem)
        messages += [Message("assistant", [TextBlock(_echo(text))]), Message.user(_reask(problem))]
    raise StructuredOutputError(problems, max(0, max_reasks) + 1, usage)


async def _answer(provider: Provider, request: CompletionRequest,
                  limit: int) -> tuple[str | None, Usage]:
    """The answer's text (None: longer than ``limit``) and the usage reported for it."""
    pieces: list[str] = []
    size = 0
    usage = Usage()
    stream = provider.stream(request)
    try:
        async for event in stream:
            if isinstance(event, TextDelta):
                pieces.append(event.text)
                size += len(event.text)
                if size > limit:
                    raise _TooLong
            elif isinstance(event, UsageReport):
                usage = usage + event.usage
            elif isinstance(event, Restart):
                pieces.clear()
                size = 0
    except _TooLong:
        return None, usage
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(Exception):
                await aclose()
    return "".join(pieces), usage


def _check(text: str | None, validator: Any, limit: int) -> tuple[Any, str | None]:
    if text is None:
        return None, f"the answer is longer than {limit} characters"
    found = extract_json(text)
    if found is None:
        return None, "no JSON value found in the answer"
    errors = sorted(validator.iter_errors(found), key=lambda e: list(e.absolute_path))
    if errors:
        return None, "; ".join(_describe(e) for e in errors[:MAX_PROBLEMS])
    return found, None


def extract_json(text: str) -> Any:
    """The JSON value in ``text``: all of it, a fenced block, or the first value in prose."""
    for candidate in (text, *(m.group(1) for m in _FENCE.finditer(text))):
        value = _loads(candidate.strip())
        if value is not None:
            return value
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"[{\[]", text)][:MAX_CANDIDATES]
    for start in starts:
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict | list):
            return value
    return None


def _loads(text: str) -> Any:
    if not text or text[0] not in "{[":
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _describe(error: Any) -> str:
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    message = str(error.message)
    if len(message) > PROBLEM_CHARS:
        message = message[: PROBLEM_CHARS - 1] + "…"
    return f"{where.lstrip('.') or '(top level)'}: {message}"


def _echo(text: str | None) -> str:
    if text is None:
        return "[answer cut off: too long]"
    return text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "\n[… cut]"


def _reask(problem: str) -> str:
    return (f"That answer was not valid: {problem}\n"
            "Answer again with only the JSON object that matches the schema, nothing else.")


def _validator(schema: dict[str, Any]) -> Any:
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema)
