"""SARIF without info notes by default and within GitHub's upload limits; messages that do not
repeat the title; the terminal table coloured by severity, wrapped not cut, chains by score."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import jsonschema
import pytest
from sec_helpers import FIXTURES

from aiagent.engines.security.engine import AuditResult
from aiagent.engines.security.finding import (
    AttackChain,
    Category,
    Finding,
    Location,
    Severity,
    assign_fingerprints,
)
from aiagent.engines.security.report import get_renderer
from aiagent.engines.security.report.common import ReportOptions
from aiagent.engines.security.report.sarif import GITHUB_LIMITS, Limits, as_dict

LONG_TITLE = ("Untrusted input interpolated into a run script through the pull request title "
              "and then executed by the shell")


def _finding(i: int, severity: Severity, title: str = "SQL query built from dynamic strings",
             description: str = "", rule: str = "") -> Finding:
    return Finding(rule or f"R-{severity.value}", "sast", severity, Category.INJECTION, title,
                   Location(f"src/m{i}.py", i + 1, i + 1), description=description)


def _result(findings: list[Finding], chains: list[AttackChain] | None = None) -> AuditResult:
    return AuditResult(root=Path("/tmp/proj"), findings=assign_fingerprints(findings),
                       chains=chains or [], skipped={}, files_scanned=len(findings),
                       lines_scanned=10, duration_s=0.0, scanners=["sast"])


def _sarif(result: AuditResult, **opts: bool) -> dict:  # type: ignore[type-arg]
    return json.loads(get_renderer("sarif")(result, ReportOptions(**opts)))


def test_sarif_leaves_info_out_unless_asked() -> None:
    result = _result([_finding(0, Severity.HIGH), _finding(1, Severity.INFO),
                      _finding(2, Severity.INFO)])
    run = _sarif(result)["runs"][0]
    assert [r["properties"]["severity"] for r in run["results"]] == ["high"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["R-high"]
    assert run["properties"]["omittedInfoResults"] == 2
    full = _sarif(result, include_info=True)["runs"][0]
    assert [r["level"] for r in full["results"]] == ["error", "note", "note"]
    assert "omittedInfoResults" not in full["properties"]


def test_sarif_messages_do_not_repeat_the_title() -> None:
    findings = [
        _finding(0, Severity.HIGH, "Docker socket mounted", rule="A"),  # no description
        _finding(1, Severity.HIGH, "Weak hash", "Weak hash", rule="B"),  # description == title
        _finding(2, Severity.HIGH, "Weak hash", "MD5 is broken.", rule="C"),
    ]
    texts = [r["message"]["text"] for r in _sarif(_result(findings))["runs"][0]["results"]]
    assert texts == ["Docker socket mounted", "Weak hash", "MD5 is broken."]
    assert not any(t.count("Weak hash") > 1 or ": " in t for t in texts)


def test_sarif_per_result_title_is_kept_once_when_it_differs_from_the_rule() -> None:
    a = _finding(0, Severity.HIGH, "lodash 4.17.11: Prototype pollution", "Details.", "GHSA-1")
    b = _finding(1, Severity.HIGH, "lodash 4.17.4: Prototype pollution", "Details.", "GHSA-1")
    texts = [r["message"]["text"] for r in _sarif(_result([a, b]))["runs"][0]["results"]]
    assert texts == ["Details.", "lodash 4.17.4: Prototype pollution. Details."]


def test_sarif_is_cut_at_githubs_result_limit_with_a_note() -> None:
    assert GITHUB_LIMITS.results == 25_000 and GITHUB_LIMITS.gzip_bytes == 10 * 1024 * 1024
    findings = [_finding(i, Severity.MEDIUM) for i in range(25_010)]
    findings += [_finding(25_010 + i, Severity.CRITICAL) for i in range(5)]  # sorted last
    sarif = _sarif(_result(findings))
    run = sarif["runs"][0]
    assert len(run["results"]) == 25_000
    assert sum(r["properties"]["severity"] == "critical" for r in run["results"]) == 5
    assert run["properties"]["truncatedResults"] == 15
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "warning" and "15 of 25015 results were left out" in note["message"]["text"]


def test_a_truncated_run_still_validates() -> None:
    findings = [_finding(i, Severity.LOW if i % 2 else Severity.HIGH) for i in range(40)]
    sarif = as_dict(_result(findings), None, Limits(results=10))
    assert {r["properties"]["severity"] for r in sarif["runs"][0]["results"]} == {"high"}
    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)


def test_sarif_stays_under_the_gzip_size_limit() -> None:
    findings = [_finding(i, Severity.HIGH if i < 10 else Severity.LOW,
                         description=f"unique text {i} " * 30) for i in range(2_000)]
    result = _result(findings)
    limits = Limits(gzip_bytes=60_000)
    doc = as_dict(result, None, limits)
    size = len(gzip.compress(json.dumps(doc, indent=2).encode()))
    run = doc["runs"][0]
    assert size <= 60_000 and 0 < len(run["results"]) < 2_000
    assert all(r["properties"]["severity"] == "high" for r in run["results"][:10])
    assert run["properties"]["truncatedResults"] == 2_000 - len(run["results"])


def test_sarif_without_limits_hit_has_no_note() -> None:
    run = _sarif(_result([_finding(0, Severity.HIGH)]))["runs"][0]
    assert "invocations" not in run and "truncatedResults" not in run["properties"]


def _chain(cid: str, severity: Severity, likelihood: str, step: Finding) -> AttackChain:
    return AttackChain(cid, f"chain {cid}", severity, (step, step), likelihood=likelihood)


def test_table_is_coloured_by_severity_on_a_terminal_and_plain_otherwise() -> None:
    result = _result([_finding(0, Severity.CRITICAL), _finding(1, Severity.MEDIUM)])
    coloured = get_renderer("table")(result, ReportOptions(color=True))
    assert "\x1b[1;31mcritical\x1b[0m" in coloured  # bold red
    assert re.search(r"\x1b\[33mmedium *\x1b\[0m", coloured)  # yellow, padded to the column
    assert "\x1b[" not in get_renderer("table")(result, ReportOptions(color=False))


def test_table_wraps_long_titles_instead_of_cutting_them() -> None:
    result = _result([_finding(0, Severity.HIGH, LONG_TITLE)])
    text = get_renderer("table")(result, ReportOptions(width=90))
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 90
    words = " ".join(text.split())
    assert " ".join(LONG_TITLE.split()[:6]) in words and "executed by the shell" in words


def test_table_lists_chains_by_score() -> None:
    step = _finding(0, Severity.HIGH)
    chains = [_chain("low-one", Severity.MEDIUM, "low", step),
              _chain("top", Severity.CRITICAL, "high", step),
              _chain("mid", Severity.HIGH, "medium", step)]
    text = get_renderer("table")(_result([step], chains), ReportOptions(width=120))
    order = [line.split()[-1] for line in text.splitlines() if line.strip().split()[-1:]
             and line.split()[-1] in {"low-one", "top", "mid"}]
    assert order == ["top", "mid", "low-one"]
    assert [c.score for c in sorted(chains, key=lambda c: -c.score)] == [9.5, 7.0, 4.5]


@pytest.mark.parametrize("fmt", ["json", "markdown", "github", "table", "sarif"])
def test_renderers_accept_options(fmt: str) -> None:
    assert get_renderer(fmt)(_result([_finding(0, Severity.LOW)]), ReportOptions())
