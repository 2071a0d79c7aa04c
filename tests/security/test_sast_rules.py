"""Every built-in SAST rule fires on its bad case and stays quiet on its safe twin."""

from __future__ import annotations

import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
import yaml
from sec_helpers import HERE, source

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.scanners.sast import SastScanner, builtin_rules
from aiagent.engines.security.scanners.sast_rules import parse_rule

CASES = yaml.safe_load((HERE / "rule_cases.yaml").read_text())
PY_3_12_SYNTAX = 'name = input()\nmsg = f"{"nested" + name!r:>{10}}"\ncur.execute(f"SELECT {name}")\n'


@lru_cache(maxsize=1)
def scanner() -> SastScanner:
    s = SastScanner()
    s.validate()
    return s


def ids(code: str, rel: str) -> list[str]:
    return [f.id for f in scanner().scan_file(source(rel), code.encode())]


def test_every_builtin_rule_has_cases() -> None:
    runnable = {r.id for r in builtin_rules() if r.kind != "llm-hint"}
    assert runnable == set(CASES)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_bad_case_is_flagged(rule_id: str) -> None:
    case = CASES[rule_id]
    # One finding per non-empty line, unless the case says how many (multi-line flows).
    expected = case.get("findings") or (
        sum(1 for line in case["bad"].splitlines() if line.strip()) if rule_id not in {
            "PY-CSRF-001", "PY-ROUTE-NOAUTH-001", "IOS-SEC-002", "APPLE-ENT-001"} else 1)
    found = ids(case["bad"], case["file"]).count(rule_id)
    assert found == expected, f"{rule_id}: {found} findings, expected {expected}"


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_safe_twin_is_clean(rule_id: str) -> None:
    case = CASES[rule_id]
    assert rule_id not in ids(case["safe"], case["file"])


def test_typescript_files_use_the_javascript_rules() -> None:
    assert "JS-SQLI-001" in ids(CASES["JS-SQLI-001"]["bad"], "server.ts")


def test_current_python_syntax_parses() -> None:
    assert ids(PY_3_12_SYNTAX, "new.py") == ["PY-SQLI-001"]


def test_findings_carry_function_and_lines() -> None:
    code = "def handler(uid):\n    cur.execute('SELECT x FROM t WHERE id = ' + uid)\n"
    finding = scanner().scan_file(source("h.py"), code.encode())[0]
    assert (finding.location.function, finding.location.start_line) == ("handler", 2)
    assert finding.cwe == "CWE-89" and finding.owasp == "A03:2021"


def test_custom_regex_rule_with_paths() -> None:
    from aiagent.engines.security.config import parse_config

    config = parse_config({"rules": [{
        "id": "CUSTOM-001", "title": "Direct DB", "severity": "high",
        "pattern": {"type": "regex", "match": r"db\.(Query|Exec)\(",
                    "exclude_paths": ["internal/repository/"]},
    }]}, ".security.yaml")
    s = SastScanner(config)
    code = b"rows := db.Query(q)\n"
    assert [f.id for f in s.scan_file(source("cmd/main.go"), code)] == ["CUSTOM-001"]
    assert s.scan_file(source("internal/repository/users.go"), code) == []


def test_lookaround_regex_runs_under_a_time_guard() -> None:
    rule = parse_rule({"id": "IOS-SEC-008", "languages": ["swift"], "pattern": {
        "type": "regex", "match": r"LAPolicy\.deviceOwnerAuthenticationWithBiometrics(?!OrDevicePasscode)"}},
        "test")
    assert rule.regex is not None and not rule.regex.linear
    assert rule.regex.search(b"ctx.evaluatePolicy(LAPolicy.deviceOwnerAuthenticationWithBiometrics, r)")
    assert not rule.regex.search(b"LAPolicy.deviceOwnerAuthenticationWithBiometricsOrDevicePasscode")


def test_catastrophic_regex_does_not_hang() -> None:
    import time

    from aiagent.engines.security.regexsafe import RegexTimeout, SafePattern

    pattern = SafePattern(r"(a|aa)+(?=c)$", timeout_s=0.2)
    assert not pattern.linear
    started = time.perf_counter()
    with pytest.raises(RegexTimeout):
        list(pattern.finditer(b"a" * 45 + b"b"))
    assert time.perf_counter() - started < 10  # unbounded, it runs for hours; slack for loaded machines


def test_bad_query_names_rule_and_field() -> None:
    rule = parse_rule({"id": "X-1", "languages": ["python"], "pattern": {
        "type": "tree-sitter", "query": "(call (nonexistent_node))"}}, ".security.yaml")
    s = SastScanner()
    s.rules.append(rule)
    s._tree_rules["python"].append(rule)
    s._queries.clear()
    with pytest.raises(SecurityConfigError, match=r"\.security\.yaml: X-1\.pattern\.query"):
        s.validate()


def test_rule_valid_only_joined_to_the_next_is_still_named() -> None:
    """Rules are compiled one by one only when the joined query says so: a rule whose text
    is not a query alone (an open paren the next rule closes) must still be reported."""
    open_rule = parse_rule({"id": "X-OPEN", "languages": ["python"], "pattern": {
        "type": "tree-sitter", "query": "(call function: (identifier) @f"}}, ".security.yaml")
    close_rule = parse_rule({"id": "X-CLOSE", "languages": ["python"], "pattern": {
        "type": "tree-sitter", "query": ") @c"}}, ".security.yaml")
    s = SastScanner()
    s._tree_rules["python"] = [*s._tree_rules["python"], open_rule, close_rule]
    s._queries.clear()
    with pytest.raises(SecurityConfigError, match=r"X-OPEN\.pattern\.query \(python\)"):
        s.validate()


def test_tree_rules_and_taint_share_one_pass() -> None:
    """Beside it: a file hit by a tree-sitter rule and a taint rule reports both."""
    code = ("import os\nfrom flask import request\n\n\ndef run():\n"
            "    os.system(request.args['c'])\n\n\napp.run(debug=True)\n")
    found = ids(code, "app.py")
    assert "PY-FLASK-DEBUG-001" in found
    assert any(i.startswith("PY-CMDI") for i in found), found


def test_every_builtin_pattern_compiles() -> None:
    """Built-in rules compile their regexes on first use: each must compile."""
    for rule in builtin_rules():
        for pattern in (rule.regex, rule.not_match, rule.text):
            if pattern is not None:
                pattern.prepare()


def test_python_audit_compiles_no_fallback_regex(tmp_path: Path) -> None:
    """Only the rules of the languages met are compiled: a Python tree does not need the
    backtracking engine some Swift rules use (its import is a start-up cost); the Python
    rules still fire."""
    (tmp_path / "app.py").write_text("import os\n\n\ndef run(host):\n    os.system('ping ' + host)\n")
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from aiagent.engines.security.config import SecurityConfig\n"
        "from aiagent.engines.security.engine import AuditOptions, run_audit\n"
        "r = run_audit(Path(sys.argv[1]), SecurityConfig(), AuditOptions(jobs=1))\n"
        "print(len(r.findings), 'regex' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True).stdout.split()
    assert int(out[0]) >= 1 and out[1] == "False"


def test_bad_pattern_of_a_project_rule_fails_at_load() -> None:
    """Beside the lazy built-ins: a project's own rule with a bad regex is an error now."""
    with pytest.raises(SecurityConfigError, match="X-RE"):
        parse_rule({"id": "X-RE", "languages": ["python"], "pattern": {
            "type": "regex", "match": "(unclosed"}}, ".security.yaml")
