"""The review report as JSON, Markdown or SARIF 2.1.0 (same rules as the security audit's
SARIF: stable rule ids, fingerprints, repo-relative URIs, no timestamps)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from aiagent import __version__
from aiagent.engines.review.findings import SEVERITIES, ReviewFinding
from aiagent.engines.review.pipeline import ReviewReport
from aiagent.engines.review.text import fence, markdown_safe, plain
from aiagent.engines.security.finding import Severity
from aiagent.engines.security.report import sarif
from aiagent.engines.security.report.common import TOOL_NAME, TOOL_URI, TOOL_VERSION

JSON_SCHEMA_VERSION = 1


def counts(findings: list[ReviewFinding]) -> dict[str, int]:
    found = Counter(f.severity for f in findings)
    return {s: found.get(s, 0) for s in SEVERITIES}


def to_json(report: ReviewReport, gate: str = "") -> dict[str, Any]:
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": "aiagent", "version": __version__, "mode": "code-review"},
        "diff": report.label,
        "model_used": report.model_used,
        "files": [{"path": f.path, "old_path": f.old_path, "status": f.status,
                   "changed_lines": f.changed_count, "note": f.note} for f in report.files],
        "summary": {"total": len(report.findings), "by_severity": counts(report.findings)},
        "findings": [f.to_dict() for f in report.findings],
        "notes": report.notes,
        "discarded": report.discarded,
        "errors": report.errors,
        "gate": {"failed": bool(gate), "reason": gate},
    }


def render_json(report: ReviewReport, gate: str = "") -> str:
    return json.dumps(to_json(report, gate), indent=2, ensure_ascii=False) + "\n"


def summary_markdown(report: ReviewReport, gate: str = "") -> str:
    c = counts(report.findings)
    lines = [f"## aiagent code review: {markdown_safe(report.label)}", ""]
    total = len(report.findings)
    by = ", ".join(f"{n} {s}" for s, n in c.items() if n)
    lines.append(f"**{total} finding(s)**" + (f" ({by})" if by else "") +
                 f" in {len(report.files)} changed file(s)" +
                 ("" if report.model_used else " — static part only"))
    if gate:
        lines += ["", f"**Gate failed:** {markdown_safe(gate)}"]
    for error in report.errors:
        lines += ["", f"> **Error:** {markdown_safe(error)}"]
    if report.notes:
        lines += ["", "<details><summary>Notes</summary>", ""]
        lines += [f"- {markdown_safe(n)}" for n in report.notes]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def finding_markdown(f: ReviewFinding, heading: str = "###") -> str:
    where = f"{f.file}:{f.start_line}" + (f"-{f.end_line}" if f.end_line != f.start_line else "")
    lines = [f"{heading} [{f.severity.upper()}] {markdown_safe(f.title, 300)}", "",
             f"`{plain(where, 500).replace('`', '')}` · {f.category} · `{f.rule_id}` · {f.source}",
             "", markdown_safe(f.explanation)]
    if f.extra.get("remediation"):
        lines += ["", f"**Remediation:** {markdown_safe(f.extra['remediation'])}"]
    if f.suggested_fix:
        lines += ["", "Suggested fix:", "", fence(markdown_safe(f.suggested_fix), "diff")]
    return "\n".join(lines) + "\n"


def render_markdown(report: ReviewReport, gate: str = "") -> str:
    parts = [summary_markdown(report, gate)]
    parts += [finding_markdown(f) for f in report.findings]
    return "\n".join(parts)


def to_sarif(report: ReviewReport, uri_prefix: str = "") -> dict[str, Any]:

    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for f in sorted(report.findings, key=lambda x: x.rule_id):
        if f.rule_id not in index:
            index[f.rule_id] = len(rules)
            rules.append(_rule(f, Severity(f.severity), sarif.LEVEL, sarif.SECURITY_SEVERITY))
    results = [_result(f, index[f.rule_id], sarif.LEVEL[Severity(f.severity)],
                       sarif.FINGERPRINT_KEY, uri_prefix) for f in report.findings]
    run = {
        "tool": {"driver": {"name": TOOL_NAME, "version": TOOL_VERSION,
                            "semanticVersion": TOOL_VERSION, "informationUri": TOOL_URI,
                            "rules": rules}},
        "automationDetails": {"id": "aiagent/code-review/"},
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    return {"$schema": sarif.SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _rule(f: ReviewFinding, sev: Any, levels: Any, scores: Any) -> dict[str, Any]:
    static = f.source.startswith("static")
    title = plain(f.title, 300) if static else f"Code review: {f.category}"
    tags = list(dict.fromkeys(["code-review", f.category]))
    rule: dict[str, Any] = {
        "id": f.rule_id,
        "name": "".join(w.capitalize() for w in f.rule_id.replace("/", "-").replace("_", "-")
                        .split("-")),
        "shortDescription": {"text": title},
        "defaultConfiguration": {"level": levels[sev]},
        "properties": {"tags": tags},
    }
    if f.category == "security":
        rule["properties"]["security-severity"] = scores[sev]
    return rule


def _result(f: ReviewFinding, index: int, level: str, key: str, prefix: str) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": f.start_line, "endLine": max(f.end_line, f.start_line)}
    if f.evidence:
        region["snippet"] = {"text": plain(f.evidence, 2000)}
    message = plain(f"{f.title}: {f.explanation}" if f.explanation else f.title)
    return {
        "ruleId": f.rule_id,
        "ruleIndex": index,
        "level": level,
        "message": {"text": message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": prefix + f.file, "uriBaseId": "%SRCROOT%"},
            "region": region}}],
        "partialFingerprints": {key: f.fingerprint},
        "properties": {"severity": f.severity, "category": f.category, "source": f.source},
    }


def render_sarif(report: ReviewReport, gate: str = "") -> str:
    return json.dumps(to_sarif(report), indent=2, ensure_ascii=False) + "\n"


RENDERERS = {"json": render_json, "markdown": render_markdown, "sarif": render_sarif}
