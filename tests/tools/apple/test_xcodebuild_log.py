"""Golden tests of the xcodebuild log parser (fixtures/*.log -> fixtures/golden/*.json),
and its bounds: chunked input, huge logs, an endless line.

Regenerate a golden after a deliberate change with ``UPDATE_GOLDEN=1`` and read the diff."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from aiagent.agent.tools.apple.buildlog import CAPS, MAX_LINE, BuildLog, parse_text

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LOGS = sorted(p.name for p in FIXTURES.glob("*.log"))
ROOT = Path("/Users/dev/MyApp")


@pytest.mark.parametrize("name", LOGS)
def test_golden(name: str) -> None:
    report = parse_text((FIXTURES / name).read_text(), ROOT)
    golden = FIXTURES / "golden" / name.replace(".log", ".json")
    text = json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_compiler_errors_carry_location_notes_and_fixits() -> None:
    r = parse_text((FIXTURES / "build_compile_errors_xcode15.log").read_text(), ROOT)
    assert [(e["file"], e["line"], e["column"]) for e in r["errors"]] == [
        ("MyApp/ContentView.swift", 14, 13), ("MyApp/ContentView.swift", 20, 24)]
    assert r["errors"][1]["fixits"][0].endswith(": ?? <#default value#>")
    assert len(r["errors"]) == 2  # the repeated diagnostic is kept once
    assert r["summary"].startswith("BUILD FAILED: 2 errors, 2 warnings\nfirst error: MyApp/ContentView.swift:14:13:")


def test_linker_errors_both_linker_styles() -> None:
    for name in ("build_linker_errors_xcode16.log", "build_linker_errors_xcode14_style.log"):
        errors = parse_text((FIXTURES / name).read_text(), ROOT)["errors"]
        kinds = [e["message"].split(" ")[0] for e in errors]
        assert kinds.count("undefined") >= 1 and "duplicate" in kinds
        assert {"framework", "library"} <= set(kinds)
        assert all(e["kind"] == "linker" for e in errors)
        assert all(e["referenced_from"] for e in errors if e["message"].startswith(("undefined", "duplicate")))


def test_signing_errors_are_classified() -> None:
    errors = parse_text((FIXTURES / "build_signing_errors.log").read_text(), ROOT)["errors"]
    assert [e["hint"].split(":")[0] for e in errors] == ["no_team", "no_profile", "no_identity", "entitlement_mismatch"]
    assert errors[0]["target"] == "MyAppWidget"


def test_xctest_and_swift_testing_results() -> None:
    xc = parse_text((FIXTURES / "test_xctest_xcode15.log").read_text(), ROOT)["tests"]
    assert (xc["total"], xc["passed"], xc["failed"], xc["skipped"]) == (4, 2, 1, 1)
    assert xc["failures"][0] | {} == {
        "suite": "CalculatorTests", "name": "testDivision", "status": "failed", "duration": 0.011,
        "message": 'XCTAssertEqual failed: ("2.0") is not equal to ("2.5")',
        "file": "MyAppTests/CalculatorTests.swift", "line": 25, "style": "xctest"}
    st = parse_text((FIXTURES / "test_parallel_swift_testing_xcode16.log").read_text(), ROOT)["tests"]
    names = {(f.get("suite"), f["name"]) for f in st["failures"]}
    assert names == {("CalculatorTests", "testDivision()"), (None, "Rounds half up"),
                     ("StorageTests", "testCrashOnLaunch()")}
    rounds = next(f for f in st["failures"] if f["name"] == "Rounds half up")
    assert (rounds["file"], rounds["line"], rounds["style"]) == ("FormatterTests.swift", 18, "swift-testing")


def test_chunked_feeding_gives_the_same_report() -> None:
    data = (FIXTURES / "build_compile_errors_xcode15.log").read_bytes()
    log = BuildLog(ROOT)
    for i in range(0, len(data), 7):  # splits lines and UTF-8 sequences
        log.feed_bytes(data[i:i + 7])
    assert log.report() == parse_text(data.decode(), ROOT)


def test_huge_log_is_bounded_and_says_what_was_cut() -> None:
    log = BuildLog(ROOT)
    started = time.process_time()
    for i in range(50_000):
        log.feed(f"/Users/dev/MyApp/A{i}.swift:{i + 1}:1: warning: unused variable 'x{i}'")
        log.feed(f"Test Case '-[T.S test{i}]' passed (0.001 seconds).")
    log.feed("/Users/dev/MyApp/Real.swift:3:4: error: the one real error")
    report = log.report()
    assert len(report["warnings"]) == CAPS["warnings"] and report["cut"]["warnings"].startswith("49900 ")
    assert report["errors"][0]["message"] == "the one real error"  # errors have their own cap
    assert report["tests"]["passed"] == 50_000 and len(report["tests"]["cases"]) == CAPS["tests"]
    assert len(json.dumps(report)) < 400_000
    assert time.process_time() - started < 30  # generous: linear work, not a timing test


def test_endless_line_keeps_only_its_start() -> None:
    log = BuildLog(ROOT)
    for _ in range(200):
        log.feed_bytes(b"x" * 100_000)  # no newline ever
    assert len(log._partial) <= MAX_LINE
    log.feed_bytes(b"\n/Users/dev/MyApp/B.swift:1:1: error: after the long line\n")
    error = log.report()["errors"][0]
    assert (error["file"], error["message"]) == ("B.swift", "after the long line")


def test_garbage_and_binary_input_parse_to_nothing() -> None:
    report = parse_text("\x00\x01\ufffd random words: error\n:::: warning:\n" * 100, ROOT)
    assert report["errors"] == [] and report["result"] is None
