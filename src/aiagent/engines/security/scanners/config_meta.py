"""Build findings for the config scanners from rule metadata in rules/config.yaml."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from aiagent.engines.security.finding import Category, Confidence, Finding, Location, Severity
from aiagent.engines.security.redaction import evidence as redacted_evidence
from aiagent.engines.security.rulepack import read_pack_text
from aiagent.engines.security.yamlio import load_yaml


@lru_cache(maxsize=1)
def config_rules() -> dict[str, dict[str, Any]]:
    rules: dict[str, dict[str, Any]] = load_yaml(read_pack_text("config.yaml"))["rules"]
    return rules


def make(rule_id: str, rel: str, line: int, evidence: str, detail: str = "") -> Finding:
    meta = config_rules()[rule_id]
    return Finding(
        id=rule_id,
        scanner="config",
        severity=Severity(meta["severity"]),
        category=Category(meta["category"]),
        title=meta["title"],
        description=detail or meta["title"],
        location=Location(rel, line, line),
        cwe=meta.get("cwe", ""),
        owasp=meta.get("owasp", ""),
        evidence=redacted_evidence(evidence),
        remediation=meta.get("remediation", ""),
        confidence=Confidence(meta.get("confidence", "medium")),
    )
