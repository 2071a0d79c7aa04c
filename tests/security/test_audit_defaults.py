"""`[security]` in config.toml sets audit defaults; .security.yaml `ci.*` and flags win."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from aiagent.engines.security.defaults import parse_defaults
from aiagent.engines.security.finding import Severity
from aiagent.frontends.cli.security_audit import security_audit

MEDIUM_ONLY = "import hashlib\n\ndef etag(body):\n    return hashlib.md5(body).hexdigest()\n"


def user_config(text: str) -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def audit(path: Path, *args: str) -> int:
    result = CliRunner().invoke(security_audit, [str(path), "--no-cache", *args])
    assert "Traceback" not in result.output
    return result.exit_code


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(MEDIUM_ONLY)  # one medium finding (PY-CRYPTO-001)
    return tmp_path


def test_no_config_means_no_gate(project: Path) -> None:
    assert audit(project) == 0


def test_config_toml_fail_on_gates(project: Path) -> None:
    user_config('[security]\nfail_on = "medium"\n')
    assert audit(project) == 1


def test_security_yaml_wins_over_config_toml(project: Path) -> None:
    user_config('[security]\nfail_on = "medium"\n')
    (project / ".security.yaml").write_text("ci:\n  fail_on: critical\n")
    assert audit(project) == 0


def test_flag_wins_over_both(project: Path) -> None:
    user_config('[security]\nfail_on = "critical"\n')
    (project / ".security.yaml").write_text("ci:\n  fail_on: critical\n")
    assert audit(project, "--fail-on", "medium") == 1


def test_custom_rules_path(project: Path) -> None:
    (project / "policy").mkdir()
    (project / "policy" / "audit.yaml").write_text("ci:\n  fail_on: low\n")
    user_config('[security]\ncustom_rules = "policy/audit.yaml"\n')
    assert audit(project) == 1
    user_config('[security]\ncustom_rules = "policy/missing.yaml"\n')
    result = CliRunner().invoke(security_audit, [str(project), "--no-cache"])
    assert result.exit_code == 2 and "security.custom_rules" in result.output


def test_bad_value_is_a_one_line_error(project: Path) -> None:
    user_config('[security]\nfail_on = "severe"\n')
    result = CliRunner().invoke(security_audit, [str(project), "--no-cache"])
    assert result.exit_code == 2
    assert "security.fail_on: unknown severity 'severe'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_parse_defaults() -> None:
    d = parse_defaults({"fail_on": "HIGH"}, "x")
    assert d.fail_on == Severity.HIGH
    # the old LLM-phase keys are accepted and ignored (there is no LLM phase)
    assert parse_defaults({"max_llm_calls": -1, "enable_llm_analysis": "x"}, "x") == parse_defaults({}, "x")
