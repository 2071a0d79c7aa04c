"""Path context: findings in tests, examples, fixtures, docs, vendored and generated code are
demoted one severity level and carry their path category in every report format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.engine import AuditOptions, AuditResult, run_audit
from aiagent.engines.security.finding import Severity
from aiagent.engines.security.pathcontext import default_categories, demote, parse_categories
from aiagent.engines.security.report import get_renderer

CMDI = 'import os\n\ndef run(host):\n    os.system("ping " + host)\n'
AWS = 'KEY = "AKIAQ3EGRT7NPLKJ4XYZ"\n'


@pytest.mark.parametrize(("rel", "category"), [
    ("app.py", "source"),
    ("src/pkg/views.py", "source"),
    ("src/aiagent/testing/fake.py", "source"),  # a package named "testing" is product code
    ("tests/test_app.py", "test"),
    ("pkg/test_views.py", "test"),
    ("pkg/views_test.go", "test"),
    ("web/src/app.spec.ts", "test"),
    ("src/test/java/AppTest.java", "test"),
    ("okhttp/src/jvmTest/kotlin/okhttp3/RecordingAuthenticator.kt", "test"),  # KMP source sets
    ("app/src/androidTest/java/LoginFlow.kt", "test"),
    ("okhttp/src/jvmMain/kotlin/okhttp3/Authenticator.kt", "source"),
    ("src/LoadTesting/runner.kt", "source"),
    ("tests/fixtures/app.py", "fixture"),
    ("pkg/testdata/x.go", "fixture"),
    ("examples/demo/app.py", "example"),
    ("docs/guide/snippet.py", "docs"),
    ("README.md", "docs"),
    ("vendor/github.com/x/y.go", "vendored"),
    ("third_party/lib/tests/t.py", "vendored"),  # first match wins: vendored before test
    ("api/service_pb2.py", "generated"),
    ("api/service.pb.go", "generated"),
])
def test_path_categories(rel: str, category: str) -> None:
    assert default_categories().category(rel) == category


def test_demotion_is_one_step_and_info_is_the_floor() -> None:
    assert default_categories().demotion_steps == 1
    assert demote(Severity.CRITICAL, 1) is Severity.HIGH
    assert demote(Severity.LOW, 1) is Severity.INFO
    assert demote(Severity.INFO, 1) is Severity.INFO
    assert demote(Severity.CRITICAL, 4) is Severity.INFO


@pytest.mark.parametrize(("text", "message"), [
    ('demotion_steps = 9\n', "demotion_steps: must be an integer from 0 to 4"),
    ('[[category]]\nname = "tests"\nglobs = ["x/"]\n', "category[0].name: unknown category 'tests'"),
    ('[[category]]\nname = "test"\nglobs = "x/"\n', "category[0].globs: must be a list of strings"),
])
def test_bad_category_file_names_the_field(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_categories(text, "cats.toml")


def _audit(root: Path) -> AuditResult:
    return run_audit(root, SecurityConfig(), AuditOptions(jobs=1))


def _tree(root: Path) -> None:
    for rel, text in {"app.py": CMDI, "tests/test_app.py": CMDI, "examples/run.py": CMDI,
                      "settings.py": AWS, "tests/fixtures/keys.py": AWS}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_findings_outside_source_are_demoted_not_hidden(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = {(f.id, f.location.file): f for f in _audit(tmp_path).findings}
    src, test, example = (found["PY-CMDI-001", p] for p in ("app.py", "tests/test_app.py",
                                                             "examples/run.py"))
    assert src.severity is Severity.HIGH and src.path_category == "source"
    assert "original_severity" not in src.metadata
    assert test.severity is Severity.MEDIUM and test.path_category == "test"
    assert test.metadata["original_severity"] == "high" and test.metadata["demoted_for"] == "test"
    assert example.severity is Severity.MEDIUM and example.path_category == "example"
    key = found["SECRET-AWS-ACCESS-KEY-ID", "tests/fixtures/keys.py"]
    # fixtures fall two levels (issue 27: a test suite's keys below high)
    assert key.severity is Severity.MEDIUM and key.path_category == "fixture"
    assert found["SECRET-AWS-ACCESS-KEY-ID", "settings.py"].severity is Severity.CRITICAL


def test_override_then_demotion_keeps_the_rules_original_severity(tmp_path: Path) -> None:
    from aiagent.engines.security.config import load_config

    _tree(tmp_path)
    policy = tmp_path / ".security.yaml"
    policy.write_text("overrides:\n  - id: PY-CMDI-001\n    severity: critical\n")
    result = run_audit(tmp_path, load_config(policy), AuditOptions(jobs=1))
    (test,) = [f for f in result.findings if f.location.file == "tests/test_app.py"]
    assert test.severity is Severity.HIGH  # overridden to critical, then one step down
    assert test.metadata["original_severity"] == "high"


def test_a_chain_made_only_of_test_code_is_demoted(tmp_path: Path) -> None:
    app = ('from flask import Flask, request\nimport os\napp = Flask(__name__)\n\n'
           '@app.route("/ping")\ndef ping():\n    os.system("ping " + request.args["h"])\n'
           '    return "ok"\n')
    (tmp_path / "app.py").write_text(app)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "app.py").write_text(app)
    chains = _audit(tmp_path).chains
    by_file = {c.steps[0].location.file: c for c in chains}
    assert set(by_file) == {"app.py", "tests/app.py"}
    assert by_file["app.py"].severity is Severity.CRITICAL
    assert by_file["tests/app.py"].severity is Severity.HIGH
    assert chains[0] is by_file["app.py"]  # sorted by score: the source chain first
    assert chains[0].score > chains[1].score


def test_a_project_chain_entered_from_an_example_is_demoted(tmp_path: Path) -> None:
    """The debugger chain links an entry to a secret anywhere; the entry decides."""
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "app.py").write_text(
        'from flask import Flask\napp = Flask(__name__)\napp.run(debug=True)\n')
    (tmp_path / "settings.py").write_text('SECRET_KEY = "s3cr3t-Value-f0r-flask-sessions-9"\n')
    (chain,) = [c for c in _audit(tmp_path).chains if c.id.startswith("CHAIN-DEBUGGER")]
    assert [s.path_category for s in chain.steps] == ["example", "source"]
    assert chain.severity is Severity.HIGH  # critical, one step down


def test_every_format_carries_the_path_category(tmp_path: Path) -> None:
    _tree(tmp_path)
    result = _audit(tmp_path)
    data = json.loads(get_renderer("json")(result))
    cats = {(f["location"]["file"], f["path_category"]) for f in data["findings"]}
    assert ("tests/test_app.py", "test") in cats and ("app.py", "source") in cats
    assert data["summary"]["by_path_category"]["fixture"] == 1
    sarif = json.loads(get_renderer("sarif")(result))
    props = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]:
             r["properties"]["pathCategory"] for r in sarif["runs"][0]["results"]}
    assert props["examples/run.py"] == "example" and props["app.py"] == "source"
    markdown = get_renderer("markdown")(result)
    assert "`tests/test_app.py:4` — test · CWE-78" in markdown
    table = get_renderer("table")(result)
    (row,) = [line for line in table.splitlines() if "tests/test_app.py" in line]
    assert row.split()[:3] == ["medium", "PY-CMDI-001", "test"]
    github = get_renderer("github")(result)
    assert "title=[medium%2C test] PY-CMDI-001" in github  # "," escaped in a property
