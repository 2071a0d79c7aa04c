"""JSON report: the Appendix C schema plus attack chains and a summary."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.report.common import TOOL_NAME, TOOL_VERSION, severity_counts

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult
    from aiagent.engines.security.report.common import ReportOptions

SCHEMA_VERSION = 1


def as_dict(result: AuditResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": TOOL_VERSION},
        "summary": {
            "files_scanned": result.files_scanned,
            "lines_scanned": result.lines_scanned,
            "skipped": dict(sorted(result.skipped.items())),
            "scanners": list(result.scanners),
            "by_severity": {s.value: n for s, n in severity_counts(result.findings).items()},
            "by_path_category": dict(sorted(Counter(f.path_category
                                                    for f in result.findings).items())),
            "total": len(result.findings),
        },
        "findings": [f.to_dict() for f in result.findings],
        "attack_chains": [c.to_dict() for c in result.chains],  # highest score first
        "file_scores": dict(result.file_scores),
        "warnings": list(result.warnings),
    }
    if result.llm:  # the LLM phase ran (security/analyzers): tokens, cost, errors
        out["llm"] = dict(result.llm)
    return out


def render(result: AuditResult, options: ReportOptions | None = None) -> str:
    del options  # nothing to choose in this format
    return json.dumps(as_dict(result), indent=2, sort_keys=False) + "\n"
