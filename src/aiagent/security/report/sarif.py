"""SARIF 2.1.0 for GitHub code scanning: stable ruleIds, rule metadata, partialFingerprints,
`security-severity`, repo-relative URIs. No timestamps or absolute paths, so output is
reproducible."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aiagent.security.finding import Finding, Severity
from aiagent.security.report.common import TOOL_NAME, TOOL_URI, TOOL_VERSION

if TYPE_CHECKING:
    from aiagent.security.engine import AuditResult

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {
    Severity.CRITICAL: "error", Severity.HIGH: "error", Severity.MEDIUM: "warning",
    Severity.LOW: "note", Severity.INFO: "note",
}
SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5", Severity.HIGH: "8.0", Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0", Severity.INFO: "0.0",
}
FINGERPRINT_KEY = "aiagentFindingHash/v1"


def _rule(f: Finding) -> dict[str, Any]:
    tags = ["security", f.category.value]
    if f.cwe:
        tags.append(f"external/cwe/{f.cwe.lower()}")
    if f.owasp:
        tags.append(f"external/owasp/{f.owasp.lower()}")
    help_text = f.remediation or f.title
    rule: dict[str, Any] = {
        "id": f.id,
        "name": "".join(w.capitalize() for w in f.id.replace("_", "-").split("-")),
        "shortDescription": {"text": f.title},
        "fullDescription": {"text": f.description or f.title},
        "help": {"text": help_text, "markdown": f"**Remediation:** {help_text}"},
        "defaultConfiguration": {"level": LEVEL[f.severity]},
        "properties": {
            "tags": tags,
            "precision": {"high": "high", "medium": "medium", "low": "low"}[f.confidence.value],
            "security-severity": SECURITY_SEVERITY[f.severity],
            "problem.severity": {"error": "error", "warning": "warning"}.get(
                LEVEL[f.severity], "recommendation"),
        },
    }
    if f.references:
        rule["helpUri"] = f.references[0]
    return rule


def _result(f: Finding, index: int, prefix: str = "") -> dict[str, Any]:
    loc = f.location
    region: dict[str, Any] = {"startLine": max(loc.start_line, 1)}
    region["endLine"] = max(loc.end_line, region["startLine"])
    if f.evidence:
        region["snippet"] = {"text": f.evidence}
    physical = {
        "artifactLocation": {"uri": prefix + loc.file, "uriBaseId": "%SRCROOT%"},
        "region": region,
    }
    out: dict[str, Any] = {
        "ruleId": f.id,
        "ruleIndex": index,
        "level": LEVEL[f.severity],
        "message": {"text": f"{f.title}: {f.description}" if f.description else f.title},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {
            "severity": f.severity.value,
            "confidence": f.confidence.value,
            "scanner": f.scanner,
        },
    }
    if loc.function:
        out["locations"][0]["logicalLocations"] = [{"name": loc.function, "kind": "function"}]
    if f.skill_source:
        out["properties"]["skillSource"] = f.skill_source
    if f.metadata:
        out["properties"]["metadata"] = dict(sorted(f.metadata.items()))
    return out


def as_dict(result: AuditResult) -> dict[str, Any]:
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for f in sorted(result.findings, key=lambda x: x.id):
        if f.id not in index:
            index[f.id] = len(rules)
            rules.append(_rule(f))
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": TOOL_NAME, "version": TOOL_VERSION, "semanticVersion": TOOL_VERSION,
            "informationUri": TOOL_URI, "rules": rules,
        }},
        "automationDetails": {"id": "aiagent/security-audit/"},
        "columnKind": "utf16CodeUnits",
        "results": [_result(f, index[f.id], result.uri_prefix) for f in result.findings],
        "properties": {"attackChains": [c.to_dict() for c in result.chains]},
    }
    if result.llm:  # the LLM phase ran (security/analyzers): tokens, cost, errors
        run["properties"]["llm"] = dict(result.llm)
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(result: AuditResult) -> str:
    return json.dumps(as_dict(result), indent=2) + "\n"
