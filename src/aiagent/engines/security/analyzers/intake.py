"""Model findings -> :class:`Finding`, trusting nothing the model says.

The schema already bounded types, counts and string sizes; here every finding must name a
file that was sent in that request (exactly, no path games) and lines inside that file.
Text is stripped of control characters and terminal escapes before it can reach a report
or a terminal. The evidence is taken from the file itself, never from the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aiagent.engines.security.analyzers.catalog import Analyzer
from aiagent.engines.security.analyzers.plan import SourceText
from aiagent.engines.security.finding import Category, Confidence, Finding, Location, Severity

EVIDENCE_LINES = 3
EVIDENCE_CHARS = 300
SHOWN_CHARS = 80  # of a rejected value, in the error message
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


class Rejected(ValueError):
    """One finding that cannot be accepted; the message says why."""


def clean(text: str, limit: int, *, one_line: bool = True) -> str:
    text = _CONTROL.sub("", _ANSI.sub("", text.replace("\t", " ")))
    if one_line:
        text = " ".join(text.split())
    return text[:limit].strip()


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def to_finding(raw: Mapping[str, Any], analyzer: Analyzer, sent: Mapping[str, SourceText],
               model: str) -> Finding:
    """The finding ``raw`` (already schema-valid) or :class:`Rejected`."""
    source = sent.get(raw["file"])
    if source is None:
        raise Rejected(f"file {shown(raw['file'])} was not among the files sent")
    start, end = int(raw["start_line"]), int(raw["end_line"])
    if end < start or end > len(source.lines):
        raise Rejected(f"lines {start}-{end} are outside {source.rel} "
                       f"({len(source.lines)} lines)")
    confidence = float(raw["confidence"])
    return Finding(
        id=f"{analyzer.id}-{raw['cwe']}",
        scanner=f"llm-{analyzer.name}",
        severity=Severity(raw["severity"]),
        category=Category(raw["category"]),
        title=clean(raw["title"], 160) or analyzer.title,
        location=Location(source.rel, start, end, clean(raw.get("function", ""), 200)),
        description=clean(raw["description"], 2000, one_line=False),
        cwe=raw["cwe"],
        evidence=_evidence(source, start, end),
        remediation=clean(raw.get("remediation", ""), 1000, one_line=False),
        confidence=_level(confidence),
        references=(f"https://cwe.mitre.org/data/definitions/{raw['cwe'][4:]}.html",),
        metadata={"source": "llm", "analyzer": analyzer.name, "model": clean(model, 100),
                  "llm_confidence": f"{confidence:.2f}"},
    )


def _evidence(source: SourceText, start: int, end: int) -> str:
    lines = source.lines[start - 1 : min(end, start + EVIDENCE_LINES - 1)]
    return clean("\n".join(lines), EVIDENCE_CHARS, one_line=False)


def _level(confidence: float) -> Confidence:
    if confidence >= 0.8:
        return Confidence.HIGH
    return Confidence.MEDIUM if confidence >= 0.5 else Confidence.LOW
