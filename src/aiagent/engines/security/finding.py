"""The unified finding schema (spec Appendix C) and attack chains.

A finding's ``fingerprint`` is stable across line moves: it hashes the rule id, the
repo-relative path, the enclosing function and the whitespace-normalised evidence text,
never the line number.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]

    @classmethod
    def parse(cls, value: str) -> Severity:
        try:
            return cls(value.strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown severity {value!r} (expected one of: {names})") from None


_SEVERITY_RANK = {
    Severity.CRITICAL: 4,
    Severity.HIGH: 3,
    Severity.MEDIUM: 2,
    Severity.LOW: 1,
    Severity.INFO: 0,
}


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Category(StrEnum):
    INJECTION = "injection"
    AUTHENTICATION = "authentication"
    AUTHORIZATION = "authorization"
    CRYPTOGRAPHY = "cryptography"
    SECRETS_EXPOSURE = "secrets-exposure"
    VULNERABLE_DEPENDENCY = "vulnerable-dependency"
    MISCONFIGURATION = "misconfiguration"
    DATA_EXPOSURE = "data-exposure"
    RACE_CONDITION = "race-condition"
    INPUT_VALIDATION = "input-validation"
    LOGGING_MONITORING = "logging-monitoring"
    SUPPLY_CHAIN = "supply-chain"
    LICENSE_COMPLIANCE = "license-compliance"


@dataclass(frozen=True, slots=True)
class Location:
    file: str
    start_line: int = 0
    end_line: int = 0
    function: str = ""
    start_column: int = 0
    end_column: int = 0


@dataclass(frozen=True, slots=True)
class Finding:
    id: str
    scanner: str
    severity: Severity
    category: Category
    title: str
    location: Location
    description: str = ""
    cwe: str = ""
    owasp: str = ""
    evidence: str = ""
    remediation: str = ""
    confidence: Confidence = Confidence.MEDIUM
    references: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)
    skill_source: str = ""
    fingerprint: str = ""
    path_category: str = "source"  # source | test | example | fixture | docs | vendored | generated

    def with_fingerprint(self, occurrence: int = 0) -> Finding:
        return replace(self, fingerprint=compute_fingerprint(self, occurrence))

    def to_dict(self) -> dict[str, Any]:
        loc = self.location
        return {
            "id": self.id,
            "scanner": self.scanner,
            "severity": self.severity.value,
            "category": self.category.value,
            "title": self.title,
            "description": self.description,
            "location": {
                "file": loc.file,
                "start_line": loc.start_line,
                "end_line": loc.end_line,
                "function": loc.function,
            },
            "cwe": self.cwe,
            "owasp": self.owasp,
            "evidence": self.evidence,
            "remediation": self.remediation,
            "confidence": self.confidence.value,
            "references": list(self.references),
            "metadata": dict(self.metadata),
            "skill_source": self.skill_source,
            "fingerprint": self.fingerprint,
            "path_category": self.path_category,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        loc = data.get("location", {})
        return cls(
            id=data["id"],
            scanner=data["scanner"],
            severity=Severity(data["severity"]),
            category=Category(data["category"]),
            title=data["title"],
            description=data.get("description", ""),
            location=Location(
                file=loc.get("file", ""),
                start_line=loc.get("start_line", 0),
                end_line=loc.get("end_line", 0),
                function=loc.get("function", ""),
            ),
            cwe=data.get("cwe", ""),
            owasp=data.get("owasp", ""),
            evidence=data.get("evidence", ""),
            remediation=data.get("remediation", ""),
            confidence=Confidence(data.get("confidence", "medium")),
            references=tuple(data.get("references", ())),
            metadata=dict(data.get("metadata", {})),
            skill_source=data.get("skill_source", ""),
            fingerprint=data.get("fingerprint", ""),
            path_category=data.get("path_category", "source"),
        )


def compute_fingerprint(finding: Finding, occurrence: int = 0) -> str:
    """A hash that ignores line numbers, so moving code keeps the identity."""
    evidence = " ".join(finding.evidence.split())
    parts = [
        finding.id,
        finding.location.file,
        finding.location.function,
        evidence,
        finding.metadata.get("package", ""),
        str(occurrence),
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def assign_fingerprints(findings: list[Finding]) -> list[Finding]:
    """Fingerprint findings; identical ones in one file are told apart by order."""
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        base = compute_fingerprint(f)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(f.with_fingerprint(n))
    return out


def sort_key(finding: Finding) -> tuple[int, str, int, str]:
    loc = finding.location
    return (-finding.severity.rank, loc.file, loc.start_line, finding.id)


@dataclass(frozen=True, slots=True)
class AttackChain:
    id: str
    title: str
    severity: Severity
    steps: tuple[Finding, ...]
    impact: str = ""
    likelihood: str = ""

    @property
    def score(self) -> float:
        """0-10 for ordering: the chain's severity, its likelihood, then its length."""
        base = _CHAIN_BASE[self.severity] + _LIKELIHOOD.get(self.likelihood.lower(), 0.0)
        return round(min(10.0, max(0.0, base + 0.1 * max(len(self.steps) - 2, 0))), 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "severity": self.severity.value,
            "score": self.score,
            "impact": self.impact,
            "likelihood": self.likelihood,
            "steps": [s.fingerprint for s in self.steps],
        }


_CHAIN_BASE = {
    Severity.CRITICAL: 9.0, Severity.HIGH: 7.0, Severity.MEDIUM: 5.0, Severity.LOW: 3.0,
    Severity.INFO: 1.0,
}
_LIKELIHOOD = {"high": 0.5, "medium": 0.0, "low": -0.5}


def chain_sort_key(chain: AttackChain) -> tuple[float, str, int, str]:
    """Highest score first; ties in entry-location order."""
    entry = chain.steps[0].location if chain.steps else Location("")
    return (-chain.score, entry.file, entry.start_line, chain.id)
