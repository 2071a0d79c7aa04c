"""Golden tests for every report format; SARIF and CycloneDX validate against their schemas.

Regenerate the golden files with UPDATE_GOLDEN=1 after an intended change.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from functools import lru_cache
from pathlib import Path

import jsonschema
import pytest
from sec_helpers import FIXTURES, GOLDEN

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, AuditResult, run_audit
from aiagent.engines.security.report import FORMATS, get_renderer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vulnerable-app"
SUFFIX = {"table": "txt", "json": "json", "markdown": "md", "sarif": "sarif", "github": "txt",
          "cyclonedx": "cdx.json"}


@lru_cache(maxsize=1)
def example_result(tmp: str) -> AuditResult:
    target = Path(tmp) / "vulnerable-app"
    shutil.copytree(EXAMPLE, target)
    result = run_audit(target, SecurityConfig(), AuditOptions(jobs=1))
    return dataclasses.replace(result, duration_s=0.0)


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> AuditResult:
    return example_result(str(tmp_path_factory.mktemp("golden")))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_golden(fmt: str, result: AuditResult) -> None:
    text = get_renderer(fmt)(result)
    golden = GOLDEN / f"vulnerable-app.{fmt}.{SUFFIX[fmt]}"
    if os.environ.get("UPDATE_GOLDEN") or not golden.exists():
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_sarif_validates_against_the_official_schema(result: AuditResult) -> None:
    schema = json.loads((FIXTURES / "sarif-schema-2.1.0.json").read_text())
    sarif = json.loads(get_renderer("sarif")(result))
    jsonschema.Draft4Validator(schema).validate(sarif)
    run = sarif["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    for res in run["results"]:
        assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["partialFingerprints"]
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not uri.startswith("/") and "\\" not in uri
    for rule in run["tool"]["driver"]["rules"]:
        assert float(rule["properties"]["security-severity"]) >= 0


def test_cyclonedx_validates_with_the_library(result: AuditResult) -> None:
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    text = get_renderer("cyclonedx")(result)
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
    bom = json.loads(text)
    assert {v["id"] for v in bom["vulnerabilities"]} >= {"GHSA-jf85-cpcp-j695", "GHSA-8q59-q68h-6hv4"}


def test_json_report_follows_the_finding_schema(result: AuditResult) -> None:
    data = json.loads(get_renderer("json")(result))
    keys = {"id", "scanner", "severity", "category", "title", "description", "location", "cwe",
            "owasp", "evidence", "remediation", "confidence", "references", "metadata",
            "skill_source", "fingerprint", "path_category"}
    assert all(set(f) == keys for f in data["findings"])
    assert data["summary"]["total"] == len(data["findings"])


def test_github_annotations_escape_properties() -> None:
    from aiagent.engines.security.finding import Category, Finding, Location, Severity
    from aiagent.engines.security.report.github import annotation

    f = Finding("X-1", "sast", Severity.HIGH, Category.INJECTION, "a: b, c",
                Location("dir,x/a:b.py", 3, 4), description="line1\nline2 100%")
    assert annotation(f) == ("::error file=dir%2Cx/a%3Ab.py,line=3,endLine=4,"
                             "title=[high] X-1%3A a%3A b%2C c::line1%0Aline2 100%25")
