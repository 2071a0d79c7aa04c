"""The model's part: a briefing in, an incident report out, validated against
``data/incident.schema.json``. The model's answer is untrusted: it must parse and match
the schema (else it is asked again, a bounded number of times, then the run reports a
pipeline error), its evidence must quote lines that are in the briefing (others are
dropped, and a hypothesis left with none is dropped too), and its sizes are capped by the
schema."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiagent.engines.logs.briefing import make_briefing, normalise, quoted_lines
from aiagent.engines.logs.rules import data_text

Complete = Callable[[str, str], Awaitable[str]]
"""``complete(system, prompt) -> text``: one model call, passed in by the front-end."""
MAX_ANSWER_CHARS = 200_000
ECHO_CHARS = 4000
MIN_QUOTE = 16  # a shorter fragment of a line does not count as evidence


class IncidentError(Exception):
    """The model never gave a valid report; the message is one line."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


@dataclass(slots=True)
class Incident:
    report: dict[str, Any]
    attempts: int
    dropped_evidence: int = 0
    dropped_hypotheses: int = 0
    notes: list[str] = field(default_factory=list)


async def explain(static: dict[str, Any], complete: Complete, *, attempts: int = 3,
                  question: str | None = None) -> Incident:
    """Ask the model for the incident report; raise IncidentError after ``attempts``."""
    briefing = make_briefing(static, question)
    system = data_text("prompt.md")
    base = f"Briefing (JSON):\n{briefing}\n"
    prompt, error = base, ""
    for attempt in range(1, attempts + 1):
        answer = (await complete(system, prompt))[:MAX_ANSWER_CHARS]
        report, error = parse_report(answer)
        if report is not None:
            return _checked(report, briefing, attempt)
        reask = data_text("reask.md").replace("{error}", error)
        prompt = f"{base}\nYour previous answer:\n{answer[:ECHO_CHARS]}\n\n{reask}"
    raise IncidentError(f"the model's answer was not a valid incident report after "
                        f"{attempts} attempts: {error}", attempts)


def parse_report(answer: str) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in ``answer`` if it matches the schema, else None and why."""
    import jsonschema

    text = answer.strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None, "no JSON object in the answer"
    try:
        value = json.loads(text[start:end + 1])
    except ValueError as exc:
        return None, f"not valid JSON ({exc})"
    validator = jsonschema.Draft202012Validator(schema())
    problem = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "(top level)"
        return None, f"at {where}: {problem.message[:300]}"
    return value, ""


def schema() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(data_text("incident.schema.json"))
    return result


def _checked(report: dict[str, Any], briefing: str, attempts: int) -> Incident:
    known = quoted_lines(briefing)
    incident = Incident(report, attempts)
    kept = []
    for hypothesis in report["root_cause_hypotheses"]:
        evidence = [e for e in hypothesis["evidence"] if _quotes(e, known)]
        incident.dropped_evidence += len(hypothesis["evidence"]) - len(evidence)
        if evidence:
            kept.append({**hypothesis, "evidence": evidence})
        else:
            incident.dropped_hypotheses += 1
    report["root_cause_hypotheses"] = kept
    if incident.dropped_evidence:
        incident.notes.append(f"{incident.dropped_evidence} evidence line(s) from the model "
                              "were not in the briefing and were dropped")
    if incident.dropped_hypotheses:
        incident.notes.append(f"{incident.dropped_hypotheses} hypothesis(es) had no evidence "
                              "from the briefing left and were dropped")
    return incident


def _quotes(evidence: str, known: set[str]) -> bool:
    text = normalise(evidence)
    if text in known:
        return True
    return len(text) >= MIN_QUOTE and any(text in line for line in known)
