"""Security Rule Skills in the real `aiagent security-audit` command (subprocess, offline,
no API key): rule packs, Starlark/process/Python scanners with their permissions, the
`on_security_scan_complete` hook, and one-line errors for bad rule files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
HIPAA = REPO / "examples" / "skills" / "hipaa-compliance"
FIXTURES = Path(__file__).parent / "fixtures" / "skills"
AIAGENT = Path(sys.executable).parent / "aiagent"

HIPAA_EXPECTED = {
    ("HIPAA-LOG-001", "records.py", 10), ("HIPAA-LOG-001", "records.py", 11),
    ("HIPAA-ENCRYPT-001", "records.py", 12), ("HIPAA-ENCRYPT-001", "records.py", 13),
    ("HIPAA-SCHEMA-001", "db/schema.sql", 5), ("HIPAA-SCHEMA-001", "db/schema.sql", 6),
}


def audit(tmp_path: Path, *args: str, extra_env: dict[str, str] | None = None,
          command: str = "security-audit") -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".data"),
        "XDG_CACHE_HOME": str(home / ".cache"), **(extra_env or {}),
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},  # a worktree's sources
    }
    return subprocess.run([str(AIAGENT), command, *args], capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL, timeout=120, cwd=tmp_path)


def findings(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert "Traceback" not in proc.stderr, proc.stderr
    return list(json.loads(proc.stdout)["findings"])


def keyed(items: list[dict[str, Any]], prefix: str) -> set[tuple[str, str, int]]:
    return {(f["id"], f["location"]["file"], f["location"]["start_line"])
            for f in items if f["id"].startswith(prefix)}


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    target = tmp_path / "clinic"
    shutil.copytree(HIPAA / "sample", target)
    return target


def test_example_skill_rules_scanner_and_overrides(tmp_path: Path, sample: Path) -> None:
    proc = audit(tmp_path, str(sample), "--skills", str(HIPAA), "--approve-skills", "hipaa-compliance",
                 "--output", "json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    found = findings(proc)
    assert keyed(found, "HIPAA-") == HIPAA_EXPECTED  # the safe twins give nothing
    for f in found:
        if f["id"].startswith("HIPAA-"):
            assert f["skill_source"] == "hipaa-compliance"
    scanners = {f["id"]: f["scanner"] for f in found}
    assert scanners["HIPAA-LOG-001"] == "sast"
    assert scanners["HIPAA-SCHEMA-001"] == "hipaa-compliance/phi-detector"
    crypto = next(f for f in found if f["id"] == "PY-CRYPTO-001")  # the skill's override
    assert crypto["severity"] == "high" and crypto["skill_source"] == ""
    assert crypto["metadata"]["original_severity"] == "medium"
    assert proc.stderr == ""


def test_appendix_a_command_with_project_skill(tmp_path: Path, sample: Path) -> None:
    shutil.copytree(HIPAA, sample / ".agent" / "skills" / "hipaa-compliance",
                    ignore=shutil.ignore_patterns("sample"))
    (sample / ".git").mkdir()
    # the skill came with the project: until the user trusts it, its code does not run
    proc = audit(tmp_path, str(sample), "--fail-on=high", "--skills=hipaa-compliance",
                 "--approve-skills=hipaa-compliance")
    assert "HIPAA-" not in proc.stdout and proc.stderr.count("not trusted") == 1, proc.stderr
    assert "hipaa-compliance (starlark)" in proc.stderr and "aiagent trust" in proc.stderr
    assert audit(tmp_path, str(sample), command="trust").returncode == 0
    proc = audit(tmp_path, str(sample), "--fail-on=high", "--skills=hipaa-compliance",
                 "--approve-skills=hipaa-compliance")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "HIPAA-LOG-001" in proc.stdout and "HIPAA-SCHEMA-001" in proc.stdout
    # a project's security-rule skill is found without --skills; its scanner still needs
    # the permission, so only the rule pack runs here, and that is said on stderr
    proc = audit(tmp_path, str(sample), "--output", "json")
    assert proc.returncode == 0
    assert keyed(findings(proc), "HIPAA-SCHEMA") == set()
    assert len(keyed(findings(proc), "HIPAA-")) == 4
    assert "skill hipaa-compliance needs permission file:read" in proc.stderr
    assert "--approve-skills hipaa-compliance" in proc.stderr


def test_the_top_level_trust_flag_reaches_the_audit(tmp_path: Path, sample: Path) -> None:
    """``aiagent --trust security-audit``: the folder is trusted for this run (the message of
    an untrusted run tells the user to add --trust; that must work), and only for this run."""
    shutil.copytree(HIPAA, sample / ".agent" / "skills" / "hipaa-compliance",
                    ignore=shutil.ignore_patterns("sample"))
    (sample / ".git").mkdir()
    args = (str(sample), "--fail-on=high", "--skills=hipaa-compliance",
            "--approve-skills=hipaa-compliance")
    proc = audit(tmp_path, "security-audit", *args, command="--trust")
    assert "not trusted" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "HIPAA-LOG-001" in proc.stdout and "HIPAA-SCHEMA-001" in proc.stdout
    again = audit(tmp_path, *args)  # nothing was stored: the next run is untrusted again
    assert "HIPAA-" not in again.stdout and "not trusted" in again.stderr


def test_python_and_process_scanners_and_the_hook(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "main.py").write_text("x = 1  # SECURITY-FIXME check input\n")
    (project / "web.js").write_text("const a = 1;\neval(userInput);\n")
    out = tmp_path / "hook.json"
    proc = audit(tmp_path, str(project), "--skills", f"{FIXTURES / 'py-markers'},{FIXTURES / 'proc-eval'}",
                 "--approve-skills", "py-markers,proc-eval", "-o", "json", "--no-cache",
                 extra_env={"HOOK_OUT": str(out)})
    assert proc.returncode == 0, proc.stderr
    found = findings(proc)
    assert keyed(found, "MARK-") == {("MARK-001", "main.py", 1)}
    assert keyed(found, "PROC-") == {("PROC-EVAL-001", "web.js", 2)}
    warnings = json.loads(proc.stdout)["warnings"]
    assert any("skill py-markers: scanner markers: finding [1]: id: required" in w for w in warnings)
    recorded = json.loads(out.read_text())
    assert {"MARK-001", "PROC-EVAL-001"} <= set(recorded["ids"])
    assert recorded["summary"]["high"] >= 1


def test_scanner_permissions_are_enforced(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "main.py").write_text("print('hi')\n")
    proc = audit(tmp_path, str(project), "--skills", str(FIXTURES / "scoped-read"),
                 "--approve-skills", "scoped-read", "-o", "json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    warnings = json.loads(proc.stdout)["warnings"]
    assert any(w.startswith("skill scoped-read: scanner reader:") and "file:read" in w
               for w in warnings), warnings


def test_spec_shaped_manifest_and_explicit_scanner_list(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    (project / "login.py").write_text("def login(password):\n    print('pw', password)  # TODO(auth)\n")
    proc = audit(tmp_path, str(project), "--skills", str(FIXTURES / "spec-shaped"),
                 "--approve-skills", "spec-shaped", "--scanners", "secrets,sast", "-o", "json",
                 "--no-cache")
    assert proc.returncode == 0, proc.stderr
    found = findings(proc)
    assert keyed(found, "SPEC-") == {("SPEC-PRINT-001", "login.py", 2), ("SPEC-TODO-001", "login.py", 2)}
    assert json.loads(proc.stdout)["summary"]["scanners"] == ["secrets", "sast", "spec-shaped/todo-auth"]


BAD_PACKS = [
    ("rules: [{id: X-1, severity: urgent, pattern: {type: regex, match: a}}]\n",
     "X-1.severity: unknown value 'urgent'"),
    ("rules: [{id: X-1, severty: high, pattern: {type: regex, match: a}}]\n", "X-1.severty: unknown field"),
    ("rules: [{id: X-1, languages: [python], pattern: {type: tree-sitter, query: '(call'}}]\n",
     "X-1.pattern.query (python)"),
    ("rules: [{id: PY-SQLI-001, pattern: {type: regex, match: a}}]\n", "PY-SQLI-001.id: this rule id is already in use"),
    ("rules:\n  - id: X-1\n   bad: [\n", "line 3: invalid YAML"),
    ("rule: []\n", "rule: unknown key"),
]


@pytest.mark.parametrize(("pack", "message"), BAD_PACKS)
def test_bad_rule_file_is_one_line_exit_2(tmp_path: Path, pack: str, message: str) -> None:
    skill = tmp_path / "bad-rules"
    (skill / "rules").mkdir(parents=True)
    (skill / "SKILL.yaml").write_text(
        "name: bad-rules\nversion: 1.0.0\ndescription: broken rules\ntypes: [security-rule]\n"
        "security_rules: {sast_rules_file: rules/sast.yaml}\n")
    (skill / "rules" / "sast.yaml").write_text(pack)
    project = tmp_path / "app"
    project.mkdir()
    proc = audit(tmp_path, str(project), "--skills", str(skill))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("aiagent: error: skill bad-rules: ") and "rules/sast.yaml" in lines[0]
    assert message in lines[0]


def test_broken_and_unknown_skills(tmp_path: Path) -> None:
    project = tmp_path / "app"
    (project / ".agent" / "skills" / "broken").mkdir(parents=True)
    (project / ".agent" / "skills" / "broken" / "SKILL.yaml").write_text("name: broken\nversion: x\n")
    (project / "run.py").write_text('import os\n\ndef run(host):\n    os.system("ping " + host)\n')
    proc = audit(tmp_path, str(project), "-o", "json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    assert "skill broken cannot load" in proc.stderr and "audit goes on without it" in proc.stderr
    assert {f["id"] for f in findings(proc)} == {"PY-CMDI-001"}
    proc = audit(tmp_path, str(project), "--skills", "no-such-skill")
    assert proc.returncode == 2
    assert proc.stderr.startswith("aiagent: error: --skills: no-such-skill: no such skill")
    proc = audit(tmp_path, str(project), "--skills", str(REPO / "examples" / "skills" / "word-tools"))
    assert proc.returncode == 0 and "not a security-rule skill" in proc.stderr
    proc = audit(tmp_path, str(project), "--skills", "./no-folder")
    assert proc.returncode == 2 and proc.stderr.startswith("aiagent: error: --skills: no-folder: no skill there")


def test_skill_rules_reach_worker_processes(tmp_path: Path) -> None:
    project = tmp_path / "many"
    project.mkdir()
    for i in range(170):  # above the engine's threshold for a process pool
        (project / f"m{i}.py").write_text(f"import logging\nlogging.info('ssn %s', ssn_{i})\n")
    proc = audit(tmp_path, str(project), "--skills", str(HIPAA), "--jobs", "2", "-o", "json",
                 "--no-cache", "--scanners", "sast")
    assert proc.returncode == 0, proc.stderr
    assert len(keyed(findings(proc), "HIPAA-LOG")) == 170


def test_plain_audit_does_not_load_the_skill_runtime(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from aiagent.frontends.cli.security_audit_run import AuditRequest, run\n"
        f"code = run(AuditRequest(Path({str(REPO / 'examples' / 'vulnerable-app')!r}), no_cache=True))\n"
        "print('RUNTIME', 'aiagent.agent.skills.runtime' in sys.modules, code)\n"
    )
    home = tmp_path / "home"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "XDG_CACHE_HOME": str(home / "c"),
           "XDG_CONFIG_HOME": str(home / "cf"), "XDG_DATA_HOME": str(home / "d")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.stdout.strip().endswith("RUNTIME False 0"), proc.stdout[-300:] + proc.stderr
    assert proc.stderr == ""


def test_a_scanner_that_never_answers_is_bounded(tmp_path: Path) -> None:
    project = tmp_path / "app"
    (project / ".agent").mkdir(parents=True)
    (project / ".agent" / "config.toml").write_text("[skills]\ncall_timeout = 1\n")
    (project / "main.py").write_text("print('hi')\n")
    proc = audit(tmp_path, str(project), "--skills", str(FIXTURES / "py-hang"), "-o", "json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["warnings"] == ["skill py-hang: scanner hang: timed out after 1s"]
