"""Reading test results: JUnit XML (pytest), ``go test -json`` events, cargo's summary
lines, and counts from the usual summary lines of other runners (jest, mocha, node --test,
XCTest, swift-testing). Everything here is the project's output: bounded, never executed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.engines.wiki.testrun import Failure

if TYPE_CHECKING:
    from aiagent.engines.wiki.testrun import TestResult

MAX_JUNIT_BYTES = 20_000_000
MAX_FAILURES = 50
MAX_MESSAGE = 2000


def _add_failure(result: TestResult, name: str, message: str) -> None:

    if len(result.failures) < MAX_FAILURES:
        result.failures.append(Failure(name, message.strip()[-MAX_MESSAGE:]))


def junit(path: Path, result: TestResult) -> None:
    import xml.etree.ElementTree as ET

    try:
        if not path.is_file() or path.stat().st_size > MAX_JUNIT_BYTES:
            return
        root = ET.parse(path).getroot()  # noqa: S314 - expat >= 2.4 bounds entity expansion
    except (OSError, ET.ParseError):
        return
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    for case in root.iter("testcase"):
        name = ".".join(p for p in (case.get("classname", ""), case.get("name", "")) if p)
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            counts["failed" if bad.tag == "failure" else "errors"] += 1
            _add_failure(result, name, (bad.get("message") or "") + "\n" + (bad.text or ""))
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    result.counts = counts


def go_json(stdout: str, result: TestResult) -> None:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    output: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or not event.get("Test"):
            continue
        key = f"{event.get('Package', '')}.{event['Test']}"
        action = event.get("Action")
        if action == "output":
            output.setdefault(key, []).append(str(event.get("Output", "")))
        elif action in ("pass", "fail", "skip"):
            counts[{"pass": "passed", "fail": "failed", "skip": "skipped"}[action]] += 1
            if action == "fail":
                _add_failure(result, key, "".join(output.get(key, [])))
    if any(counts.values()):
        result.counts = counts


CARGO = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")
CARGO_FAILED = re.compile(r"^---- (\S+) stdout ----$", re.M)


def cargo(text: str, result: TestResult) -> None:
    totals = [0, 0, 0]
    for match in CARGO.finditer(text):
        totals = [t + int(n) for t, n in zip(totals, match.groups(), strict=True)]
    if CARGO.search(text):
        result.counts = {"passed": totals[0], "failed": totals[1], "skipped": totals[2]}
    sections = CARGO_FAILED.split(text)
    for name, body in zip(sections[1::2], sections[2::2], strict=False):
        _add_failure(result, name, body.split("\n\n", 1)[0])


# (pattern, which count each group is), tried in order; the first that matches wins
COUNT_PATTERNS = [
    (re.compile(r"Tests:\s+(?:(\d+) failed, )?(?:(\d+) skipped, )?(?:\d+ todo, )?(\d+) passed"),
     ("failed", "skipped", "passed")),  # jest / vitest
    (re.compile(r"^# pass (\d+)\s*\n# fail (\d+)", re.M), ("passed", "failed")),  # node --test (TAP)
    (re.compile(r"Executed (\d+) tests?, with (\d+) failures?"), ("total", "failed")),  # XCTest
    (re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?passed"), ("passed",)),  # swift-testing
    (re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?failed.*?with (\d+) issues?"),
     ("total", "failed")),
]


MOCHA = re.compile(r"^\s*(\d+) (passing|pending|failing)\b", re.M)
MOCHA_NAMES = {"passing": "passed", "pending": "skipped", "failing": "failed"}


def counts(text: str, result: TestResult) -> None:
    mocha = {MOCHA_NAMES[word]: int(n) for n, word in MOCHA.findall(text)}
    if "passed" in mocha or "failed" in mocha:
        result.counts = {k: mocha.get(k, 0) for k in ("passed", "failed", "skipped")}
        return
    for pattern, names in COUNT_PATTERNS:
        match = pattern.search(text)
        if match is None:
            continue
        found = {name: int(v) for name, v in zip(names, match.groups(), strict=False) if v}
        if "total" in found:
            total = found.pop("total")
            found["passed"] = max(total - found.get("failed", 0), 0)
        result.counts = {k: found.get(k, 0) for k in ("passed", "failed", "skipped")}
        return
