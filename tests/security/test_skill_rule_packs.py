"""Skill rule packs merged into the policy, and skill scanner answers turned into findings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from aiagent.engines.security.config import load_config
from aiagent.engines.security.engine import AuditOptions, run_audit
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Severity
from aiagent.engines.security.scanners.registry import register_scanner, unregister_scanner
from aiagent.engines.security.scanners.skill_adapter import SkillScannerAdapter
from aiagent.engines.security.skillfindings import to_findings
from aiagent.engines.security.skillrules import apply_skill_rules

HIPAA = Path(__file__).resolve().parents[2] / "examples" / "skills" / "hipaa-compliance"


@dataclass(frozen=True)
class Ref:
    skill: str
    kind: str
    path: Path


def test_packs_join_the_policy_and_project_overrides_win(tmp_path: Path) -> None:
    policy = tmp_path / ".security.yaml"
    policy.write_text("overrides:\n  - id: PY-CRYPTO-001\n    severity: low\n")
    config = apply_skill_rules(load_config(policy), [
        Ref("hipaa-compliance", "sast", HIPAA / "rules" / "sast.yaml"),
        Ref("hipaa-compliance", "overrides", HIPAA / "rules" / "overrides.yaml"),
    ])
    assert [r.raw["id"] for r in config.skill_rules] == ["HIPAA-LOG-001", "HIPAA-ENCRYPT-001"]
    assert config.overrides["PY-CRYPTO-001"].severity is Severity.LOW


def test_two_skills_cannot_share_a_rule_id() -> None:
    pack = HIPAA / "rules" / "sast.yaml"
    with pytest.raises(SecurityConfigError, match="skill b: .*HIPAA-LOG-001.id: this rule id"):
        apply_skill_rules(load_config(None), [Ref("a", "sast", pack), Ref("b", "sast", pack)])


def test_scanner_answers_become_findings() -> None:
    raw = [
        {"id": "R-1", "file": "./src/a.py", "line": 3, "severity": "HIGH", "message": "m"},
        {"rule": "R-2", "path": "/proj/b.py", "start_line": 2, "end_line": 4},
        {"id": "R-3", "file": "../etc/passwd"},
        {"id": "R-4", "file": "c.py", "severity": "urgent"},
        {"id": "R-5", "file": "c.py", "line": "7"},
        "not a mapping",
    ]
    found, problems = to_findings(raw, "sk", "scan", "/proj")
    assert [(f.id, f.location.file, f.location.start_line, f.location.end_line) for f in found] == [
        ("R-1", "src/a.py", 3, 3), ("R-2", "b.py", 2, 4)]
    assert found[0].severity is Severity.HIGH and found[0].description == "m"
    assert {f.skill_source for f in found} == {"sk"} and found[0].scanner == "sk/scan"
    assert [p.split(": ", 3)[-1] for p in problems] == [
        "file: '../etc/passwd' must be a path inside the audited folder",
        "severity: unknown value 'urgent' (expected one of: critical, high, medium, low, info)",
        "line: must be a line number (an integer ≥ 1)",
        "must be a mapping, got str",
    ]
    assert to_findings({"__error__": "boom"}, "sk", "scan")[1] == ["skill sk: scanner scan: boom"]
    assert to_findings({"x": 1}, "sk", "scan")[1] == ["skill sk: scanner scan: must return a list of findings, got dict"]


def test_adapter_runs_through_the_engine_and_a_failure_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    seen: list[dict[str, object]] = []

    def good(data: dict[str, object]) -> object:
        seen.append(data)
        return [{"id": "G-1", "file": "a.py", "line": 1}]

    def bad(data: dict[str, object]) -> object:
        raise RuntimeError("scanner crashed\nwith detail")

    adapters = [SkillScannerAdapter("s", "good", good), SkillScannerAdapter("s", "bad", bad)]
    for a in adapters:
        register_scanner(a.name, a.factory)
    try:
        result = run_audit(tmp_path, load_config(None), AuditOptions(scanners=("s/good", "s/bad")))
    finally:
        for a in adapters:
            unregister_scanner(a.name)
    assert [(f.id, f.skill_source) for f in result.findings] == [("G-1", "s")]
    assert seen[0]["files"] == [{"path": "a.py", "language": "python"}]
    assert result.warnings == ["skill s: scanner bad: scanner crashed with detail"]
