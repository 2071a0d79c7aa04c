"""SARIF 2.1.0 for GitHub code scanning: stable ruleIds, rule metadata, partialFingerprints,
`security-severity`, repo-relative URIs. No timestamps or absolute paths, so output is
reproducible.

Info-level findings are left out unless asked for (``include_info``), and the run is kept
within GitHub's upload limits (results and rules per run, tags per rule, gzip size): the
most severe results are kept and a notification in the run says what was dropped."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.finding import Finding, Severity
from aiagent.engines.security.report.common import TOOL_NAME, TOOL_URI, TOOL_VERSION, ReportOptions

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult

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


@dataclass(frozen=True, slots=True)
class Limits:
    """GitHub code scanning's hard limits for one uploaded SARIF file (documented under
    "SARIF results exceed hard limit"); 20 runs per file and 1,000 locations per result are
    met by construction (one run, one location)."""

    results: int = 25_000
    rules: int = 25_000
    tags: int = 20
    gzip_bytes: int = 10 * 1024 * 1024


GITHUB_LIMITS = Limits()


def _rule(f: Finding) -> dict[str, Any]:
    tags = ["security", f.category.value]
    if f.cwe:
        tags.append(f"external/cwe/{f.cwe.lower()}")
    if f.owasp:
        tags.append(f"external/owasp/{f.owasp.lower()}")
    tags = tags[:GITHUB_LIMITS.tags]
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


def _message(f: Finding, rule_title: str) -> str:
    """The result's own text, never "title: title": the rule already carries its title."""
    desc = f.description.strip()
    if not desc or desc == f.title or desc.startswith(f.title):
        return desc or f.title
    if f.title == rule_title:
        return desc
    return f"{f.title}. {desc}"  # a per-result title (a package and version) says more


def _result(f: Finding, index: int, prefix: str = "", rule_title: str = "") -> dict[str, Any]:
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
        "message": {"text": _message(f, rule_title or f.title)},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {
            "severity": f.severity.value,
            "confidence": f.confidence.value,
            "scanner": f.scanner,
            "pathCategory": f.path_category,
        },
    }
    if loc.function:
        out["locations"][0]["logicalLocations"] = [{"name": loc.function, "kind": "function"}]
    if f.skill_source:
        out["properties"]["skillSource"] = f.skill_source
    if f.metadata:
        out["properties"]["metadata"] = dict(sorted(f.metadata.items()))
    return out


def as_dict(result: AuditResult, options: ReportOptions | None = None,
            limits: Limits = GITHUB_LIMITS) -> dict[str, Any]:
    return _fit(result, options or ReportOptions(), limits)[0]


def _fit(result: AuditResult, opts: ReportOptions, limits: Limits) -> tuple[dict[str, Any], str]:
    """The document and its text, with as many results as GitHub accepts (most severe first)."""
    findings = [f for f in result.findings if opts.include_info or f.severity is not Severity.INFO]
    omitted_info = len(result.findings) - len(findings)
    kept = sorted(findings, key=lambda f: -f.severity.rank)[:limits.results]  # stable: by rank
    kept = _within_rule_limit(kept, limits.rules)
    while True:
        doc = _document(result, kept, omitted_info, len(findings))
        text = json.dumps(doc, indent=2) + "\n"
        if not kept or _fits(text, limits.gzip_bytes):
            return doc, text
        kept = kept[: len(kept) * 3 // 4]  # drop the least severe quarter and try again


def _fits(text: str, gzip_bytes: int) -> bool:
    data = text.encode()
    if len(data) + 1024 <= gzip_bytes:  # gzip never grows a text by more than its header
        return True
    return len(gzip.compress(data, compresslevel=1)) <= gzip_bytes  # level 1: an upper bound


def _within_rule_limit(findings: list[Finding], max_rules: int) -> list[Finding]:
    ids: set[str] = set()
    out = []
    for f in findings:
        if f.id not in ids and len(ids) >= max_rules:
            continue
        ids.add(f.id)
        out.append(f)
    return out


def _document(result: AuditResult, kept: list[Finding], omitted_info: int,
              eligible: int) -> dict[str, Any]:
    keep = {id(f) for f in kept}
    ordered = [f for f in result.findings if id(f) in keep]  # report order, as before
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for f in sorted(ordered, key=lambda x: x.id):
        if f.id not in index:
            index[f.id] = len(rules)
            rules.append(_rule(f))
    results = [_result(f, index[f.id], result.uri_prefix, rules[index[f.id]]["shortDescription"]
                       ["text"]) for f in ordered]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": TOOL_NAME, "version": TOOL_VERSION, "semanticVersion": TOOL_VERSION,
            "informationUri": TOOL_URI, "rules": rules,
        }},
        "automationDetails": {"id": "aiagent/security-audit/"},
        "columnKind": "utf16CodeUnits",
        "results": results,
        "properties": {"attackChains": [c.to_dict() for c in result.chains]},
    }
    if result.llm:  # the LLM phase ran (security/analyzers): tokens, cost, errors
        run["properties"]["llm"] = dict(result.llm)
    if omitted_info:
        run["properties"]["omittedInfoResults"] = omitted_info
    dropped = eligible - len(ordered)
    if dropped:
        text = (f"{dropped} of {eligible} results were left out to stay within GitHub code "
                "scanning's upload limits; the most severe were kept. Use --output json for all.")
        run["properties"]["truncatedResults"] = dropped
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "warning", "message": {"text": text}}]}]
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(result: AuditResult, options: ReportOptions | None = None) -> str:
    return _fit(result, options or ReportOptions(), GITHUB_LIMITS)[1]
