"""``swift build`` / ``swift test`` output -> compiler diagnostics, linker errors and test
results (XCTest in its macOS and Linux spellings, and Swift Testing), so the model gets the
structure, not the megabytes."""

from __future__ import annotations

import re
from typing import Any

MAX_ITEMS = 100

DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<column>\d+):)?\s*"
                        r"(?P<kind>error|warning|note):\s*(?P<message>.*)$")
PLAIN_ERROR = re.compile(r"^error:\s*(?P<message>.+)$")
LINKER = re.compile(r"^(?:ld: |Undefined symbols for architecture|.*undefined reference to |"
                    r"clang: error: linker command failed|error: link command failed)")
XCTEST_CASE = re.compile(r"^Test Case '(?:-\[(?P<mac_suite>[\w.]+) (?P<mac_case>\w+)\]|"
                         r"(?P<suite>[\w.]+)\.(?P<case>\w+))' (?P<status>started|passed|failed|skipped)"
                         r"(?: \((?P<duration>[\d.]+) seconds\))?")
XCTEST_FAILURE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?:-\[[\w.]+ (?P<mac>\w+)\]|"
                            r"[\w.]+\.(?P<case>\w+)) : (?P<message>.*)$")
XCTEST_TOTAL = re.compile(r"^\s*Executed (?P<count>\d+) tests?, with (?P<failures>\d+) failures?")
TESTING = re.compile(r"^\S*\s*Test (?P<name>.+?) (?:(?P<started>started)|passed after (?P<ok>[\d.]+) seconds"
                     r"|failed after (?P<bad>[\d.]+) seconds(?: with \d+ issues?)?|(?P<skipped>skipped)"
                     r"|recorded an issue at (?P<file>[^:]+):(?P<line>\d+):(?:(?P<column>\d+):)? (?P<message>.*))"
                     r"\.?(?:\s*:.*)?$")
TESTING_RUN = re.compile(r"^\S*\s*Test run with (?P<count>\d+) tests? (?P<status>passed|failed)")
BUILD_DONE = re.compile(r"^Build complete!|^Build of (?:product|target) .* complete!")


def parse(text: str) -> dict[str, Any]:
    """Diagnostics, linker errors and tests found in ``text``."""
    out: dict[str, Any] = {"errors": [], "warnings": [], "linker_errors": [], "build_complete": False}
    tests: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, ...]] = set()
    for raw in text.splitlines():
        line = raw.rstrip()
        if BUILD_DONE.match(line):
            out["build_complete"] = True
        elif _test_line(line, tests):
            continue
        elif (diag := DIAGNOSTIC.match(line)) and diag["kind"] != "note":
            key = (diag["file"], diag["line"], diag["column"] or "", diag["message"])
            if key not in seen:  # the compiler repeats a diagnostic per architecture/job
                seen.add(key)
                out["errors" if diag["kind"] == "error" else "warnings"].append(_diagnostic(diag))
        elif LINKER.match(line):
            out["linker_errors"].append(line.strip())
        elif (plain := PLAIN_ERROR.match(line)) and not line.startswith("error: fatalError"):
            out["errors"].append({"message": plain["message"]})
    if tests:
        out["tests"] = _tests(tests)
    return _bounded(out)


def _diagnostic(match: re.Match[str]) -> dict[str, Any]:
    found: dict[str, Any] = {"file": match["file"], "line": int(match["line"]), "message": match["message"]}
    if match["column"]:
        found["column"] = int(match["column"])
    return found


def _test_line(line: str, tests: dict[str, dict[str, Any]]) -> bool:
    if case := XCTEST_CASE.match(line):
        suite = case["mac_suite"] or case["suite"]
        name = f"{suite}.{case['mac_case'] or case['case']}"
        entry = tests.setdefault(name, {"name": name, "suite": suite, "framework": "XCTest",
                                        "status": "started", "failures": []})
        if case["status"] != "started":
            entry["status"] = case["status"]
        if case["duration"]:
            entry["duration"] = float(case["duration"])
        return True
    if failure := XCTEST_FAILURE.match(line):
        short = failure["mac"] or failure["case"]
        failed = next((t for t in reversed(tests.values()) if t["name"].endswith(f".{short}")), None)
        if failed is not None:
            failed["failures"].append({"file": failure["file"], "line": int(failure["line"]),
                                      "message": failure["message"]})
            return True
        return False
    if TESTING_RUN.match(line) or XCTEST_TOTAL.match(line) or line.startswith("Test Suite '"):
        return True
    return _swift_testing(line, tests)


def _swift_testing(line: str, tests: dict[str, dict[str, Any]]) -> bool:
    match = TESTING.match(line)
    if match is None or match["name"] == "run" or match["name"].startswith("run "):
        return False
    name = match["name"].strip()
    entry = tests.setdefault(f"swift-testing:{name}", {"name": name, "framework": "Swift Testing",
                                                       "status": "started", "failures": []})
    if match["ok"]:
        entry.update(status="passed", duration=float(match["ok"]))
    elif match["bad"]:
        entry.update(status="failed", duration=float(match["bad"]))
    elif match["skipped"]:
        entry["status"] = "skipped"
    elif match["file"]:
        issue: dict[str, Any] = {"file": match["file"], "line": int(match["line"]), "message": match["message"]}
        if match["column"]:
            issue["column"] = int(match["column"])
        entry["failures"].append(issue)
    return True


def _tests(tests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    cases = list(tests.values())
    for case in cases:
        if case["status"] == "started":
            case["status"] = "did not finish (crashed or timed out)"
        if not case["failures"]:
            del case["failures"]
    counts: dict[str, int] = {}
    for case in cases:
        counts[case["status"]] = counts.get(case["status"], 0) + 1
    failed = [c for c in cases if c["status"] not in ("passed", "skipped")]
    return {"total": len(cases), "counts": counts, "failed": failed,
            "passed": [c["name"] for c in cases if c["status"] == "passed"]}


def _bounded(out: dict[str, Any]) -> dict[str, Any]:
    for key in ("errors", "warnings", "linker_errors"):
        if len(out[key]) > MAX_ITEMS:
            out[f"{key}_omitted"] = len(out[key]) - MAX_ITEMS
            out[key] = out[key][:MAX_ITEMS]
    tests = out.get("tests")
    if tests and len(tests["passed"]) > MAX_ITEMS:
        tests["passed"] = tests["passed"][:MAX_ITEMS] + [f"... {len(tests['passed']) - MAX_ITEMS} more"]
    return out


def summary(parsed: dict[str, Any], exit_code: int | None) -> str:
    """One line the model can act on."""
    parts = [f"exit {exit_code}"]
    for key, label in (("errors", "error"), ("warnings", "warning"), ("linker_errors", "linker error")):
        count = len(parsed[key]) + parsed.get(f"{key}_omitted", 0)
        if count:
            parts.append(f"{count} {label}{'s' if count != 1 else ''}")
    tests = parsed.get("tests")
    if tests:
        parts.append(", ".join(f"{n} {status}" for status, n in sorted(tests["counts"].items())) + " tests")
    if parsed["build_complete"]:
        parts.append("build complete")
    return "; ".join(parts)
