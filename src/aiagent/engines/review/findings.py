"""A review finding (static or from the model), merging duplicates, and the gates."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

CATEGORIES = ("bug", "security", "performance", "maintainability", "style", "test-gap")
SEVERITIES = ("critical", "high", "medium", "low", "info")
RANK = {s: len(SEVERITIES) - i for i, s in enumerate(SEVERITIES)}


@dataclass(frozen=True, slots=True)
class ReviewFinding:
    rule_id: str  # static: the security rule id; model: review/<category>
    source: str  # static | model | static+model
    category: str
    severity: str
    file: str
    start_line: int
    end_line: int
    title: str
    explanation: str = ""
    suggested_fix: str = ""
    evidence: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        """Stable across line moves: rule, file and the normalised title."""
        key = "\0".join((self.rule_id, self.file, " ".join(self.title.lower().split())))
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id, "source": self.source, "category": self.category,
            "severity": self.severity, "file": self.file, "start_line": self.start_line,
            "end_line": self.end_line, "title": self.title, "explanation": self.explanation,
            "suggested_fix": self.suggested_fix, "evidence": self.evidence,
            "fingerprint": self.fingerprint, "extra": dict(sorted(self.extra.items())),
        }


def overlaps(a: ReviewFinding, b: ReviewFinding, slack: int = 2) -> bool:
    return (a.file == b.file and a.start_line <= b.end_line + slack
            and b.start_line <= a.end_line + slack)


def merge(static: list[ReviewFinding], model: list[ReviewFinding]) -> list[ReviewFinding]:
    """Static findings, each joined by the model's finding on the same lines and category
    (the higher severity wins, the model's explanation and fix are kept); then the model's
    other findings, one per file, line and category."""
    merged = list(static)
    seen: set[tuple[str, int, str]] = set()
    for found in model:
        key = (found.file, found.start_line, found.category)
        if key in seen:
            continue
        seen.add(key)
        twin = next((i for i, s in enumerate(merged) if s.source.startswith("static")
                     and s.category == found.category and overlaps(s, found)), None)
        if twin is None:
            merged.append(found)
            continue
        s = merged[twin]
        merged[twin] = replace(
            s, source="static+model",
            severity=max(s.severity, found.severity, key=RANK.__getitem__),
            explanation=s.explanation or found.explanation,
            suggested_fix=s.suggested_fix or found.suggested_fix,
            extra={**s.extra, "model_explanation": found.explanation})
    return sorted(merged, key=lambda f: (-RANK[f.severity], f.file, f.start_line, f.rule_id))


def gate(findings: list[ReviewFinding], fail_on: str | None, max_findings: int | None) -> str:
    """Why the gate fails ("" when it passes): a finding at or over ``fail_on``, or more
    than ``max_findings`` findings."""
    if fail_on:
        over = [f for f in findings if RANK[f.severity] >= RANK[fail_on]]
        if over:
            return f"{len(over)} finding(s) at or above {fail_on}"
    if max_findings is not None and len(findings) > max_findings:
        return f"{len(findings)} findings, more than --max-findings {max_findings}"
    return ""
