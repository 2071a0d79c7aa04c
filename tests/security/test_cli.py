"""The `security-audit` and `security db import` commands, in process and as the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sec_helpers import FIXTURES

from aiagent.frontends.cli.security_audit import security_audit
from aiagent.frontends.cli.security_db import security

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "vulnerable-app"
AIAGENT = Path(sys.executable).parent / "aiagent"
VULN = 'import os\n\ndef run(host):\n    os.system("ping " + host)\n'


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(security_audit, [*args, "--no-cache"])


def test_example_app_table(tmp_path: Path) -> None:
    result = invoke(str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert "critical" in result.output and "PY-SQLI-001" in result.output
    assert "SECRET-AWS-ACCESS-KEY-ID" in result.output and "GHSA-8q59-q68h-6hv4" in result.output
    assert "\x1b[" not in result.output  # plain text when not a terminal


@pytest.mark.parametrize(("args", "code"), [
    ([], 0),
    (["--fail-on", "critical"], 1),
    (["--fail-on", "info", "--max-findings", "10000"], 0),
    (["--max-findings", "3"], 1),
])
def test_exit_codes(args: list[str], code: int) -> None:
    assert invoke(str(EXAMPLE), *args).exit_code == code


def test_config_gate_and_bad_config(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(VULN)
    (tmp_path / ".security.yaml").write_text("ci:\n  fail_on: high\n")
    assert invoke(str(tmp_path)).exit_code == 1
    (tmp_path / ".security.yaml").write_text("ci:\n  fail_on: [high]\n")
    result = invoke(str(tmp_path))
    assert result.exit_code == 2
    assert result.output.strip().endswith(".security.yaml: ci.fail_on: must be a severity string")
    assert "Traceback" not in result.output


def test_unknown_scanner_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke(str(tmp_path), "--scanners", "secrets,nope")
    assert result.exit_code == 2 and "--scanners: nope: unknown scanner" in result.output


def test_out_file_gets_report_and_stdout_gets_summary(tmp_path: Path) -> None:
    out = tmp_path / "r" / "audit.sarif"
    result = invoke(str(EXAMPLE), "-o", "sarif", "--out", str(out))
    assert result.exit_code == 0 and "SEVERITY" in result.output
    assert json.loads(out.read_text())["version"] == "2.1.0"


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def test_diff_scope_scans_only_changed_files(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "old.py").write_text(VULN)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "new.py").write_text(VULN)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "two")
    result = invoke(str(tmp_path), "--scope", "diff", "--diff", "HEAD~1..HEAD", "-o", "json")
    files = {f["location"]["file"] for f in json.loads(result.output)["findings"]}
    assert files == {"new.py"}
    bad = invoke(str(tmp_path), "--scope", "diff", "--diff", "nope..HEAD")
    assert bad.exit_code == 2 and bad.output.startswith("aiagent: error: --diff: nope..HEAD:")


def test_history_finds_a_removed_secret(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    key = "AKIA" + "Z7VQXK4M2HN6RT3B"
    (tmp_path / "settings.py").write_text(f'KEY = "{key}"\n')
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "oops")
    (tmp_path / "settings.py").write_text('KEY = os.environ["KEY"]\n')
    git(tmp_path, "commit", "-qam", "fix")
    assert "SECRET-AWS" not in invoke(str(tmp_path)).output
    data = json.loads(invoke(str(tmp_path), "--history", "-o", "json").output)
    (finding,) = [f for f in data["findings"] if f["id"] == "SECRET-AWS-ACCESS-KEY-ID"]
    assert finding["metadata"]["commit"] and finding["location"]["file"] == "settings.py"


def test_db_import_then_audit_uses_it(tmp_path: Path) -> None:
    db = tmp_path / "osv.sqlite"
    result = CliRunner().invoke(security, ["db", "import", str(FIXTURES / "osv"), "--db", str(db)])
    assert result.exit_code == 0 and "imported 7 advisories" in result.output
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "requirements.txt").write_text("jinja2==2.10\npkg_with.list==1.0\n")
    out = invoke(str(tmp_path / "app"), "--osv-db", str(db), "-o", "json").output
    ids = {f["id"] for f in json.loads(out)["findings"]}
    # the import is merged with the bundled snapshot (it used to replace it)
    assert "TEST-VERSIONS-1" in ids  # only in the import
    assert "GHSA-h5c8-rqwp-cp95" in ids  # only in the bundled snapshot
    bad = CliRunner().invoke(security, ["db", "import", str(tmp_path / "missing"), "--db", str(db)])
    assert bad.exit_code == 2 and "no such file or folder" in bad.output


def test_db_import_reads_osv_yaml_with_real_timestamps(tmp_path: Path) -> None:
    # PyPA's advisory-database writes OSV records as YAML; unquoted times load as datetimes
    folder = tmp_path / "pypa" / "vulns" / "demo"
    folder.mkdir(parents=True)
    (folder / "PYSEC-0000-1.yaml").write_text(
        "id: PYSEC-0000-1\nmodified: 2024-05-04T12:30:00.123456Z\npublished: 2021-01-02\n"
        "affected:\n- package: {name: demo-pkg, ecosystem: PyPI}\n  ranges:\n"
        "  - type: ECOSYSTEM\n    events: [{introduced: '0'}, {fixed: '1.2'}]\n")
    db = tmp_path / "osv.sqlite"
    result = CliRunner().invoke(security, ["db", "import", str(tmp_path / "pypa"), "--db", str(db)])
    assert result.exit_code == 0 and "imported 1 advisories" in result.output, result.output
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "requirements.txt").write_text("demo-pkg==1.0\n")
    data = json.loads(invoke(str(tmp_path / "app"), "--osv-db", str(db), "-o", "json").output)
    assert "PYSEC-0000-1" in {f["id"] for f in data["findings"]}


@pytest.mark.skipif(not AIAGENT.exists(), reason="console script not installed")
def test_real_cli_end_to_end(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d"),
           "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    proc = subprocess.run([str(AIAGENT), "security-audit", str(EXAMPLE), "--fail-on", "high"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "PY-CMDI-001" in proc.stdout and "Attack chains" in proc.stdout
    again = subprocess.run([str(AIAGENT), "security-audit", str(EXAMPLE), "-o", "github"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0
    assert again.stdout.startswith("::error file=")
