"""The model part: each part of the diff goes to the agent (read-only tools), its answer is
validated against ``schema/findings.schema.json``; an invalid answer is re-asked a bounded
number of times, then the review fails with a pipeline error (never silently dropped).

Everything the model returns is untrusted: paths are normalised and must name a reviewed
file, line ranges must lie inside one hunk of the diff, sizes are bounded by the schema."""

from __future__ import annotations

import json
import posixpath
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Protocol

from aiagent.contracts.events import AgentEvent, ApprovalRequestEvent, DoneEvent, ErrorEvent
from aiagent.engines.review.chunks import Part
from aiagent.engines.review.findings import ReviewFinding
from aiagent.engines.review.hunks import FileChange

MAX_ANSWER_CHARS = 400_000
DEFAULT_REASKS = 2


class ReviewAgent(Protocol):
    """What the pipeline needs of an agent (built by the front-end through app.py)."""

    def run(self, user_input: str) -> AsyncIterator[AgentEvent]: ...

    async def aclose(self) -> None: ...


class PipelineError(Exception):
    """The model part failed (provider error, answers that stay invalid): one line."""

    def __init__(self, message: str, exit_code: int = 5) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(slots=True)
class ModelOutcome:
    findings: list[ReviewFinding] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)  # why each finding was dropped
    reasks: int = 0


@cache
def _text(name: str) -> str:
    return resources.files("aiagent.engines.review").joinpath(name).read_text("utf-8")


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_text("schema/findings.schema.json"))
    return loaded


async def ask(agent: ReviewAgent, prompt: str) -> str:
    """The agent's final answer to ``prompt`` (approvals are denied: nobody is there)."""
    done: DoneEvent | None = None
    errors: list[str] = []
    async for event in agent.run(prompt):
        if isinstance(event, ApprovalRequestEvent):
            event.answer("deny")
        elif isinstance(event, ErrorEvent):
            errors.append(event.message)
        elif isinstance(event, DoneEvent):
            done = event
    if done is None or done.stop_reason != "completed":
        reason = errors[-1] if errors else (done.stop_reason if done else "no answer")
        raise PipelineError(f"the model part failed: {reason}",
                            done.exit_code if done and done.exit_code else 5)
    return done.answer


def parse_answer(answer: str) -> dict[str, Any]:
    """The JSON object in ``answer`` (bare, or inside a fenced block), validated; ValueError
    with a short reason otherwise."""
    import jsonschema

    if len(answer) > MAX_ANSWER_CHARS:
        raise ValueError(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    start = answer.find("{")
    if start < 0:
        raise ValueError("no JSON object in the answer")
    try:
        data, _ = json.JSONDecoder().raw_decode(answer, start)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise ValueError(f"schema: at {where}: {error.message[:300]}")
    result: dict[str, Any] = data
    return result


async def review_parts(agent: ReviewAgent, parts: list[Part], files: list[FileChange], *,
                       label: str, static: list[ReviewFinding],
                       max_reasks: int = DEFAULT_REASKS) -> ModelOutcome:
    outcome = ModelOutcome()
    reviewed = {f.path: f for f in files if not f.note}
    static_text = "\n".join(f"- {f.file}:{f.start_line} {f.rule_id}: {f.title}"
                            for f in static) or "(nothing)"
    for number, part in enumerate(parts, 1):
        prompt = _text("prompts/review.md").format(
            label=label, part=number, parts=len(parts), static=static_text, hunks=part.text)
        data = await _answer(agent, prompt, max_reasks, outcome)
        for item in data["findings"]:
            found = _accept(item, reviewed, outcome.discarded)
            if found is not None:
                outcome.findings.append(found)
    return outcome


async def _answer(agent: ReviewAgent, prompt: str, max_reasks: int,
                  outcome: ModelOutcome) -> dict[str, Any]:
    answer = await ask(agent, prompt)
    for attempt in range(max_reasks + 1):
        try:
            return parse_answer(answer)
        except ValueError as exc:
            if attempt == max_reasks:
                raise PipelineError(f"the model's findings stayed invalid after {max_reasks} "
                                    f"re-asks: {exc}") from None
            outcome.reasks += 1
            answer = await ask(agent, _text("prompts/reask.md").format(error=exc))
    raise AssertionError("unreachable")


def clean_path(path: str) -> str:
    """A repo-relative POSIX path, or "" for anything absolute, escaping or odd."""
    text = path.strip().replace("\\", "/")
    for prefix in ("./", "b/"):
        if text.startswith(prefix) and len(text) > len(prefix):
            text = text[len(prefix):]
    if not text or text.startswith("/") or "\0" in text or any(ord(c) < 32 for c in text):
        return ""
    norm = posixpath.normpath(text)
    return "" if norm.startswith("..") or norm == "." else norm


def _accept(item: dict[str, Any], reviewed: dict[str, FileChange],
            discarded: list[str]) -> ReviewFinding | None:
    path = clean_path(item["file"])
    start, end = item["start_line"], item["end_line"]
    start, end = min(start, end), max(start, end)
    change = reviewed.get(path)
    if change is None:
        discarded.append(f"{item['file'][:200]!r}: not a reviewed file of the diff")
        return None
    if change.hunk_for(start, end) is None:
        discarded.append(f"{path}:{start}-{end}: outside the diff")
        return None
    return ReviewFinding(
        rule_id=f"review/{item['category']}", source="model", category=item["category"],
        severity=item["severity"], file=path, start_line=start, end_line=end,
        title=" ".join(item["title"].split()), explanation=item["explanation"],
        suggested_fix=item.get("suggested_fix", ""))
