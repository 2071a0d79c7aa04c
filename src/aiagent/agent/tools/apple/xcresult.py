"""``xcrun xcresulttool`` JSON -> the same test structure the log parser gives.

Two shapes: Xcode 16's ``get test-results summary`` / ``get test-results tests`` and the
legacy ``get --format json`` (``get object --legacy`` on Xcode 16) action record, whose
values are wrapped as ``{"_value": …}`` and lists as ``{"_values": […]}``.
"""

from __future__ import annotations

import re
from typing import Any

MAX_CASES = 500
_LOCATION = re.compile(r"^(?P<file>[^:]+\.\w+):(?P<line>\d+): (?P<text>.*)$", re.S)


def from_summary(summary: dict[str, Any], tests: dict[str, Any] | None = None) -> dict[str, Any]:
    """Xcode 16: ``summary`` (counts, failures) and optionally ``tests`` (the node tree)."""
    cases = _cases(tests.get("testNodes", [])) if tests else []
    failures = [c for c in cases if c["status"] == "failed"] or [
        _summary_failure(f) for f in summary.get("testFailures", []) if isinstance(f, dict)]
    return {
        "source": "xcresult",
        "result": summary.get("result"),
        "total": int(summary.get("totalTestCount") or len(cases)),
        "passed": int(summary.get("passedTests") or 0),
        "failed": int(summary.get("failedTests") or 0),
        "skipped": int(summary.get("skippedTests") or 0),
        "expected_failures": int(summary.get("expectedFailures") or 0),
        "failures": failures[:MAX_CASES],
        "cases": cases[:MAX_CASES],
    }


def _summary_failure(f: dict[str, Any]) -> dict[str, Any]:
    ident = str(f.get("testIdentifierString") or f.get("testName") or "")
    suite, _, name = ident.rpartition("/")
    out = {"suite": suite or None, "name": name, "status": "failed", "target": f.get("targetName"),
           "message": str(f.get("failureText") or "").strip()}
    return {k: v for k, v in out.items() if v not in (None, "")}


def _cases(nodes: list[Any], suite: str | None = None) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for node in nodes:
        if not isinstance(node, dict):
            continue
        kind = node.get("nodeType")
        if kind == "Test Case":
            found.append(_case(node, suite))
        elif len(found) < MAX_CASES:
            inner = node.get("name") if kind == "Test Suite" else suite
            found += _cases(node.get("children", []), inner)
    return found


def _case(node: dict[str, Any], suite: str | None) -> dict[str, Any]:
    status = str(node.get("result", "")).lower()
    status = {"passed": "passed", "failed": "failed", "skipped": "skipped",
              "expected failure": "passed"}.get(status, status)
    case: dict[str, Any] = {"suite": suite, "name": node.get("name"), "status": status}
    if node.get("durationInSeconds") is not None:
        case["duration"] = float(node["durationInSeconds"])
    messages = [c.get("name", "") for c in node.get("children", [])
                if isinstance(c, dict) and c.get("nodeType") == "Failure Message"]
    if messages:
        m = _LOCATION.match(messages[0])
        if m:
            case.update(file=m["file"], line=int(m["line"]))
        case["message"] = "; ".join(_LOCATION.sub(r"\g<text>", t) for t in messages)
    return {k: v for k, v in case.items() if v is not None}


def from_legacy(record: dict[str, Any]) -> dict[str, Any]:
    """The legacy ``ActionsInvocationRecord``: metrics and issue summaries."""
    metrics = record.get("metrics", {})
    issues = record.get("issues", {})
    failures = [_legacy_failure(f) for f in _values(issues.get("testFailureSummaries"))]
    total = int(_value(metrics.get("testsCount")) or 0)
    failed = int(_value(metrics.get("testsFailedCount")) or 0)
    skipped = int(_value(metrics.get("testsSkippedCount")) or 0)
    return {
        "source": "xcresult (legacy)",
        "total": total, "passed": total - failed - skipped, "failed": failed, "skipped": skipped,
        "failures": failures[:MAX_CASES],
        "errors": [_legacy_issue(i) for i in _values(issues.get("errorSummaries"))][:100],
        "warnings": [_legacy_issue(i) for i in _values(issues.get("warningSummaries"))][:100],
    }


def _legacy_failure(f: dict[str, Any]) -> dict[str, Any]:
    suite, _, name = str(_value(f.get("testCaseName")) or "").rpartition(".")
    out = {"suite": suite or None, "name": name, "status": "failed",
           "message": _value(f.get("message")), **_location(f)}
    return {k: v for k, v in out.items() if v not in (None, "")}


def _legacy_issue(i: dict[str, Any]) -> dict[str, Any]:
    out = {"kind": _value(i.get("issueType")), "message": _value(i.get("message")), **_location(i)}
    return {k: v for k, v in out.items() if v not in (None, "")}


def _location(item: dict[str, Any]) -> dict[str, Any]:
    """``file:///path/File.swift#…StartingLineNumber=11…`` (0-based line numbers)."""
    url = str(_value((item.get("documentLocationInCreatingWorkspace") or {}).get("url")) or "")
    if not url.startswith("file://"):
        return {}
    path, _, fragment = url[len("file://"):].partition("#")
    fields = dict(p.split("=", 1) for p in fragment.split("&") if "=" in p)
    out: dict[str, Any] = {"file": path}
    if fields.get("StartingLineNumber", "").isdigit():
        out["line"] = int(fields["StartingLineNumber"]) + 1
    return out


def _value(node: Any) -> Any:
    return node.get("_value") if isinstance(node, dict) else node


def _values(node: Any) -> list[dict[str, Any]]:
    items = node.get("_values", []) if isinstance(node, dict) else []
    return [i for i in items if isinstance(i, dict)]
