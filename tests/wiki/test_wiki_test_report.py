"""`aiagent wiki --test-report`: a real pytest project made here (a passing and a failing
test) run through the process runner and the sandbox, a hanging test stopped by the time
limit with the wiki still written, no framework and a missing command as notes, an
untrusted folder refused; and the result parsers on the output formats of the other runners."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

VENV_BIN = str(Path(sys.executable).parent)  # python3 with pytest, as a project venv would be


def make_pytest_project(root: Path, extra_test: str = "") -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "calc"\n[tool.pytest.ini_options]\n'
                                         'testpaths = ["tests"]\npythonpath = ["."]\n')
    (root / "calc" / "__init__.py").write_text('"""Adding."""\n\n\ndef add(a, b):\n    return a + b\n')
    (root / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_adds():\n    assert add(1, 2) == 3\n\n\n"
        "def test_wrong():\n    assert add(1, 2) == 4, '```fence``` <script>x</script>'\n" + extra_test)
    return root


@pytest.fixture
def trusted_env(clean_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in clean_env.items() if k != "AIAGENT_TRUST_WORKSPACE"}
    return env | {"PATH": VENV_BIN + ":" + env.get("PATH", "")}


def test_pytest_results_and_failures(run_cli, trusted_env: dict[str, str], tmp_path: Path) -> None:
    repo = make_pytest_project(tmp_path / "calc")
    proc = run_cli("wiki", str(repo), "--no-security", "--test-report", "--trust", env=trusted_env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "wiki: tests: running pytest" in proc.stderr and "wiki: tests: 1 passed, 1 failed" in proc.stderr
    page = (repo / "docs" / "wiki" / "testing" / "test-execution.md").read_text()
    assert "| passed | failed | errors | skipped |\n|---|---|---|---|\n| 1 | 1 | 0 | 0 |" in page
    assert "### tests.test\\_calc.test\\_wrong" in page and "test_adds" not in page
    assert "````text\nAssertionError: ```fence``` <script>x</script>" in page  # inert: inside a longer fence
    assert "failed (exit code 1)" in page and "| sandbox |" in page
    assert not list(repo.glob("**/junit*.xml")) and not (repo / ".pytest_cache").exists()


def test_untrusted_folder_is_refused(run_cli, trusted_env: dict[str, str], tmp_path: Path) -> None:
    from test_wiki_cli import one_error

    repo = make_pytest_project(tmp_path / "calc")
    assert "not trusted" in one_error(run_cli("wiki", str(repo), "--test-report", env=trusted_env))
    assert not (repo / "docs").exists()
    proc = run_cli("--trust", "wiki", str(repo), "--no-security", "--test-report", env=trusted_env, timeout=180)
    assert proc.returncode == 0, proc.stderr  # the top-level --trust counts too
    assert (repo / "docs" / "wiki" / "testing" / "test-execution.md").is_file()


def test_hanging_tests_time_out_and_the_wiki_is_written(run_cli, trusted_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    repo = make_pytest_project(tmp_path / "calc", "\n\ndef test_hangs():\n    import time\n    time.sleep(600)\n")
    proc = run_cli("wiki", str(repo), "--no-security", "--test-report", "--trust", "--test-timeout", "5",
                   env=trusted_env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "timed out after 5 s" in proc.stderr
    page = (repo / "docs" / "wiki" / "testing" / "test-execution.md").read_text()
    assert "| status | timed out |" in page and "timed out after 5 s" in page
    assert (repo / "docs" / "wiki" / "index.md").is_file()


def test_no_framework_is_a_note(run_cli, trusted_env: dict[str, str], tmp_path: Path) -> None:
    repo = tmp_path / "plain"
    repo.mkdir()
    (repo / "main.py").write_text("print('hi')\n")
    proc = run_cli("wiki", str(repo), "--no-security", "--test-report", "--trust", env=trusted_env)
    assert proc.returncode == 0, proc.stderr
    page = (repo / "docs" / "wiki" / "testing" / "test-execution.md").read_text()
    assert page.startswith("# Test execution\n\nNo tests were run: no test framework found")


def test_missing_test_command_is_a_note(run_cli, trusted_env: dict[str, str], tmp_path: Path) -> None:
    repo = tmp_path / "gomod"
    repo.mkdir()
    (repo / "go.mod").write_text("module example.com/x\n\ngo 1.22\n")
    (repo / "main.go").write_text("package main\n\nfunc main() {}\n")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    proc = run_cli("wiki", str(repo), "--no-security", "--test-report", "--trust",
                   env=trusted_env | {"PATH": str(empty)})
    assert proc.returncode == 0, proc.stderr
    page = (repo / "docs" / "wiki" / "testing" / "test-execution.md").read_text()
    assert "| runner | go test |" in page and "'go' was not found on PATH; no test was run" in page
    assert "| status | not run |" in page


def test_detection_order_and_npm_placeholder(tmp_path: Path) -> None:
    import json

    from aiagent.engines.wiki.testrun import detect

    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}))
    assert detect(tmp_path) is None
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}}))
    assert detect(tmp_path).name == "npm test"
    (tmp_path / "Cargo.toml").write_text("[package]\nname = 'x'\n")
    assert detect(tmp_path).name == "cargo test"
    (tmp_path / "conftest.py").write_text("")
    assert detect(tmp_path).name == "pytest"


GO_EVENTS = "\n".join([
    '{"Action":"run","Package":"ex/a","Test":"TestOk"}',
    '{"Action":"pass","Package":"ex/a","Test":"TestOk","Elapsed":0}',
    '{"Action":"output","Package":"ex/a","Test":"TestBad","Output":"    a_test.go:9: want 4, got 3\\n"}',
    '{"Action":"fail","Package":"ex/a","Test":"TestBad","Elapsed":0}',
    '{"Action":"skip","Package":"ex/a","Test":"TestLater","Elapsed":0}',
    'not json', '{"Action":"fail","Package":"ex/a","Elapsed":0}',
])
CARGO_OUT = """running 3 tests
test tests::ok ... ok
test tests::bad ... FAILED

failures:

---- tests::bad stdout ----
thread 'tests::bad' panicked at src/lib.rs:9:5:
assertion `left == right` failed

failures:
    tests::bad

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out

running 2 tests
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out
"""


@pytest.mark.parametrize(("parser", "text", "counts", "failure"), [
    ("go", GO_EVENTS, {"passed": 1, "failed": 1, "skipped": 1}, ("ex/a.TestBad", "want 4, got 3")),
    ("cargo", CARGO_OUT, {"passed": 3, "failed": 1, "skipped": 1}, ("tests::bad", "panicked at src/lib.rs:9:5")),
    ("counts", "Tests:       1 failed, 2 skipped, 4 passed, 7 total", {"passed": 4, "failed": 1, "skipped": 2}, None),
    ("counts", "  5 passing (12ms)\n  1 pending\n  2 failing\n", {"passed": 5, "failed": 2, "skipped": 1}, None),
    ("counts", "# tests 3\n# pass 2\n# fail 1\n", {"passed": 2, "failed": 1, "skipped": 0}, None),
    ("counts", "Executed 7 tests, with 2 failures (0 unexpected) in 0.01 seconds",
     {"passed": 5, "failed": 2, "skipped": 0}, None),
    ("counts", "✔ Test run with 4 tests in 2 suites passed after 0.003 seconds.", {"passed": 4, "failed": 0, "skipped": 0}, None),
])
def test_result_parsers(parser: str, text: str, counts: dict[str, int], failure: tuple[str, str] | None) -> None:
    from aiagent.engines.wiki import testparse
    from aiagent.engines.wiki.testrun import TestResult

    result = TestResult("x")
    {"go": testparse.go_json, "cargo": testparse.cargo, "counts": testparse.counts}[parser](text, result)
    assert result.counts == counts
    if failure:
        assert result.failures[0].name == failure[0] and failure[1] in result.failures[0].message


def test_junit_that_is_not_xml_is_no_result(tmp_path: Path) -> None:
    from aiagent.engines.wiki import testparse
    from aiagent.engines.wiki.testrun import TestResult

    bad = tmp_path / "j.xml"
    bad.write_text("<testsuite><testcase name='a'>")
    result = TestResult("pytest")
    testparse.junit(bad, result)
    assert result.counts == {}
    bad.write_text("<testsuite><testcase classname='m' name='a'/><testcase name='b'><skipped/></testcase></testsuite>")
    testparse.junit(bad, result)
    assert result.counts == {"passed": 1, "failed": 0, "errors": 0, "skipped": 1}
