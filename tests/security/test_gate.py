"""The gate: a failed threshold says which one and the counts (one stderr line) and exits 1;
usage errors exit 2 and internal errors 5, through the real `aiagent` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aiagent.engines.security.finding import Category, Finding, Location, Severity
from aiagent.engines.security.gating import Gate, check

AIAGENT = Path(sys.executable).parent / "aiagent"
VULN = 'import os\n\ndef run(host):\n    os.system("ping " + host)\n'  # PY-CMDI-001, high
MD5 = 'import hashlib\n\ndef h(x):\n    return hashlib.md5(x).hexdigest()\n'  # medium


def _f(severity: Severity, **meta: str) -> Finding:
    return Finding("R", "sast", severity, Category.INJECTION, "t", Location("a.py", 1),
                   metadata=dict(meta))


def test_gate_message_names_threshold_and_counts() -> None:
    findings = [_f(Severity.CRITICAL), _f(Severity.HIGH), _f(Severity.HIGH), _f(Severity.LOW)]
    result = check(findings, Gate(Severity.HIGH))
    assert result.failed and result.counted == 3 and result.allowed == 0
    assert result.message == ("gate failed (--fail-on high): 3 findings at or above high "
                              "(1 critical, 2 high), 0 allowed")


def test_gate_with_max_findings_and_demoted_findings() -> None:
    demoted = _f(Severity.MEDIUM, original_severity="high", demoted_for="test")
    findings = [_f(Severity.HIGH), _f(Severity.HIGH), demoted]
    assert not check(findings, Gate(Severity.HIGH, 2)).failed
    result = check(findings, Gate(Severity.HIGH, 1, "ci.fail_on in .security.yaml"))
    assert result.message == ("gate failed (ci.fail_on in .security.yaml high; --max-findings 1): "
                              "2 findings at or above high (2 high), 1 allowed; 1 more demoted "
                              "below high by path context")


def test_no_gate_never_fails() -> None:
    assert not check([_f(Severity.CRITICAL)], Gate()).failed


def _run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"),
                "XDG_DATA_HOME": str(tmp_path / "d"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
                **env}
    return subprocess.run([str(AIAGENT), *args], capture_output=True, text=True, env=full_env,
                          timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text(VULN)
    (root / "crypto.py").write_text(MD5)
    (root / "tests" / "test_app.py").write_text(VULN)  # demoted to medium
    return root


def test_real_cli_gate_failure_is_exit_1_with_one_line(project: Path, tmp_path: Path) -> None:
    if not AIAGENT.exists():
        pytest.skip("needs the aiagent console script: pip install -e .")
    proc = _run(["security-audit", str(project), "--no-cache", "--fail-on", "high"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == ["aiagent: gate failed (--fail-on high): 1 finding at or above high "
                     "(1 high), 0 allowed; 1 more demoted below high by path context"]
    ok = _run(["security-audit", str(project), "--no-cache", "--fail-on", "critical"], tmp_path)
    assert ok.returncode == 0 and ok.stderr == ""
    (project / ".security.yaml").write_text("ci:\n  fail_on: medium\n  max_findings: 2\n")
    cfg = _run(["security-audit", str(project), "--no-cache", "-o", "json"], tmp_path)
    assert cfg.returncode == 1
    assert cfg.stderr.strip() == ("aiagent: gate failed (ci.fail_on in .security.yaml medium; "
                                  "ci.max_findings in .security.yaml 2): 3 findings at or above "
                                  "medium (1 high, 2 medium), 2 allowed")
    assert len(json.loads(cfg.stdout)["findings"]) == 3  # the report is complete all the same


def test_real_cli_internal_error_is_exit_5_not_1(project: Path, tmp_path: Path) -> None:
    """A crash inside the engine is exit 5 with one line, even with a gate that would fail."""
    code = ("import sys, aiagent.engines.security.engine as e\n"
            "def boom(*a, **k):\n    raise RuntimeError('scanner exploded')\n"
            "e.run_audit = boom\n"
            "from aiagent.frontends.cli import main\n"
            "sys.argv = ['aiagent', *sys.argv[1:]]\nmain()\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d")}
    proc = subprocess.run([sys.executable, "-c", code, "security-audit", str(project),
                           "--fail-on", "low"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr.strip() == ("aiagent: error: internal error: RuntimeError: scanner exploded "
                                   "(run with --debug for the traceback)")


def test_real_cli_unwritable_out_file_is_a_usage_error(project: Path, tmp_path: Path) -> None:
    if not AIAGENT.exists():
        pytest.skip("needs the aiagent console script: pip install -e .")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = _run(["security-audit", str(project), "--no-cache", "--out", str(blocker / "r.sarif"),
                 "-o", "sarif"], tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"aiagent: error: --out: {blocker / 'r.sarif'}: cannot write")


def test_help_documents_the_exit_codes(tmp_path: Path) -> None:
    if not AIAGENT.exists():
        pytest.skip("needs the aiagent console script: pip install -e .")
    text = _run(["security-audit", "--help"], tmp_path).stdout
    assert "1  a gate failed" in text and "5  internal error" in text
    assert "--include-info" in text
