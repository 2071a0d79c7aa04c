"""`aiagent --headless --mode code-review` end to end: the real command on real git
repositories, FakeLLM as the model, fake GitHub/GitLab APIs on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from review_helpers import git

from aiagent.testing import FakeLLM, Turn

SARIF_SCHEMA = Path(__file__).parents[2] / "security" / "fixtures" / "sarif-schema-2.1.0.json"


def model_env(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def answer(*findings: dict[str, Any]) -> Turn:
    return Turn(text=json.dumps({"findings": list(findings)}))


def bug(**over: Any) -> dict[str, Any]:
    item = {"category": "bug", "severity": "high", "file": "app.py", "start_line": 13,
            "end_line": 13, "title": "items are ints: .price fails",
            "explanation": "total() is called with numbers; item.price raises AttributeError.",
            "suggested_fix": "-        result += item.price\n+        result += item\n"}
    item.update(over)
    return item


def review(run_cli, repo: Path, *args: str, env: dict[str, str] | None = None):
    return run_cli("--headless", "--mode", "code-review", *args, cwd=repo, env=env)


def test_static_only_without_a_model(run_cli, repo: Path) -> None:
    proc = review(run_cli, repo, "--diff", "main..feature", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["model_used"] is False
    found = [(f["rule_id"], f["file"], f["start_line"]) for f in data["findings"]]
    assert ("PY-CMDI-001", "app.py", 14) in found
    assert all(f["source"] == "static" for f in data["findings"])
    assert "no model: static part only" in proc.stderr


def test_gates_fail_on_and_max_findings(run_cli, repo: Path) -> None:
    assert review(run_cli, repo, "--diff", "main..feature", "--fail-on", "high").returncode == 1
    assert review(run_cli, repo, "--diff", "main..feature", "--fail-on", "critical").returncode == 0
    assert review(run_cli, repo, "--diff", "main..feature", "--max-findings", "0").returncode == 1
    proc = review(run_cli, repo, "--diff", "main..feature", "--max-findings", "5")
    assert proc.returncode == 0 and "gate failed" not in proc.stderr


def test_model_findings_inside_the_diff_are_kept_others_discarded(run_cli, repo: Path) -> None:
    script = [answer(bug(), bug(start_line=6, end_line=6, title="outside"),
                     bug(file="../../etc/passwd", title="escape"),
                     bug(file="/etc/passwd", title="absolute"),
                     bug(category="security", severity="critical", start_line=14, end_line=14,
                         title="shell injection", explanation="shell=True with input"))]
    with FakeLLM(script) as fake:
        proc = review(run_cli, repo, "--diff", "main..feature", "-o", "json", env=model_env(fake))
        sent = json.dumps(fake.requests[0]["json"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["model_used"] is True
    by_title = {f["title"]: f for f in data["findings"]}
    assert by_title["items are ints: .price fails"]["source"] == "model"
    assert by_title["items are ints: .price fails"]["rule_id"] == "review/bug"
    assert "outside" not in by_title and "escape" not in by_title and "absolute" not in by_title
    assert len(data["discarded"]) == 3
    # the model's security finding on line 14 merged with the static one (severity raised)
    merged = [f for f in data["findings"] if f["start_line"] == 14]
    assert len(merged) == 1 and merged[0]["source"] == "static+model"
    assert merged[0]["rule_id"] == "PY-CMDI-001" and merged[0]["severity"] == "critical"
    # the model saw numbered hunk lines and the static findings
    assert "    13 +         result += item.price" in sent
    assert "PY-CMDI-001" in sent


def test_invalid_json_is_reasked_then_accepted(run_cli, repo: Path) -> None:
    with FakeLLM([Turn(text="Here are my thoughts, no JSON."),
                  Turn(text='{"findings": [{"category": "bug"}]}'), answer(bug())]) as fake:
        proc = review(run_cli, repo, "--diff", "main..feature", "-o", "json", env=model_env(fake))
        requests = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert len(requests) == 3
    assert "no JSON object in the answer" in json.dumps(requests[1]["json"])
    assert "schema" in json.dumps(requests[2]["json"])
    assert any(f["source"] == "model" for f in json.loads(proc.stdout)["findings"])


def test_answers_that_stay_invalid_are_a_pipeline_error(run_cli, repo: Path) -> None:
    with FakeLLM([Turn(text="nope")] * 3) as fake:
        proc = review(run_cli, repo, "--diff", "main..feature", "-o", "json", env=model_env(fake))
    assert proc.returncode == 5
    data = json.loads(proc.stdout)  # the static part is still reported, with the error
    assert data["errors"] and "stayed invalid after 2 re-asks" in data["errors"][0]
    assert any(f["rule_id"] == "PY-CMDI-001" for f in data["findings"])
    assert "aiagent: error: the model's findings stayed invalid" in proc.stderr


def test_sarif_validates_and_has_stable_rule_ids(run_cli, repo: Path) -> None:
    with FakeLLM([answer(bug())]) as fake:
        proc = review(run_cli, repo, "--diff", "main..feature", "-o", "sarif", env=model_env(fake))
    assert proc.returncode == 0, proc.stderr
    sarif = json.loads(proc.stdout)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    run = sarif["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert sorted(ids) == ids and "review/bug" in ids and "PY-CMDI-001" in ids
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["partialFingerprints"]["aiagentFindingHash/v1"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app.py"


def test_markdown_is_the_default_report(run_cli, repo: Path) -> None:
    proc = review(run_cli, repo, "--diff", "main..feature")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("## aiagent code review: main..feature\n")
    assert "[HIGH] OS command built from dynamic input" in proc.stdout


# ---- diff selection --------------------------------------------------------------------


def files_of(proc) -> list[str]:
    assert proc.returncode == 0, proc.stderr
    return [f["path"] for f in json.loads(proc.stdout)["files"]]


def test_selections_working_tree_staged_base_and_merge_base(run_cli, repo: Path) -> None:
    (repo / "new.py").write_text("x = 1\n")
    (repo / "app.py").write_text((repo / "app.py").read_text() + "# edit\n")
    git(repo, "add", "new.py")
    assert files_of(review(run_cli, repo, "-o", "json")) == ["app.py", "new.py"]
    assert files_of(review(run_cli, repo, "--staged", "-o", "json")) == ["new.py"]
    assert files_of(review(run_cli, repo, "--base", "main", "-o", "json")) == ["app.py"]
    git(repo, "checkout", "-q", "-f", "main")
    (repo / "other.py").write_text("y = 2\n")
    git(repo, "add", "other.py")
    git(repo, "commit", "-qm", "main moves on")
    git(repo, "checkout", "-q", "--detach", "feature")  # a CI checkout
    assert files_of(review(run_cli, repo, "--diff", "main...feature", "-o", "json")) == ["app.py"]
    assert sorted(files_of(review(run_cli, repo, "--diff", "main..feature", "-o", "json"))) \
        == ["app.py", "other.py"]


def test_renames_binaries_deletions_lockfiles_and_generated_files_are_noted(
        run_cli, repo: Path) -> None:
    git(repo, "mv", "app.py", "core.py")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" * 10)
    (repo / "bundle.min.js").write_text("var a=1;" * 100 + "\n")
    (repo / "requirements.txt").write_text("requests==2.19.0\n")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "lib.py").write_text("z = 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "more")
    git(repo, "rm", "-q", "logo.png")
    git(repo, "commit", "-qm", "drop logo")
    proc = review(run_cli, repo, "--diff", "feature~1..feature", "-o", "json")
    data = json.loads(proc.stdout)
    assert [(f["path"], f["note"]) for f in data["files"]] == [("logo.png", "deleted")]
    proc = review(run_cli, repo, "--diff", "main..feature~1", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    notes = {f["path"]: (f["status"], f["note"]) for f in data["files"]}
    assert notes["core.py"][0] == "renamed" and notes["core.py"][1] == ""
    assert notes["logo.png"] == ("added", "binary file")
    assert notes["bundle.min.js"][1] == "generated"
    assert notes["vendor/lib.py"][1] == "vendored"
    assert notes["requirements.txt"][1].startswith("lockfile")
    # the new lockfile's vulnerable dependency is found by the static part
    assert any(f["file"] == "requirements.txt" and f["extra"]["scanner"] == "dependencies"
               for f in data["findings"])


# ---- bad input -------------------------------------------------------------------------


def one_line_error(proc, code: int, text: str) -> None:
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("aiagent: error:")]
    assert len(errors) == 1 and text in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_not_a_git_repository(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    one_line_error(review(run_cli, folder), 2, "not a git repository")


def test_a_range_that_does_not_exist(run_cli, repo: Path) -> None:
    one_line_error(review(run_cli, repo, "--diff", "main..nope"), 2, "unknown revision 'nope'")
    one_line_error(review(run_cli, repo, "--diff", "--output=x..HEAD"), 2, "is not a revision")
    one_line_error(review(run_cli, repo, "--base", "nope"), 2, "unknown revision 'nope'")
    assert review(run_cli, repo, "--diff", "main..feature").returncode == 0  # beside it


def test_an_empty_diff(run_cli, repo: Path) -> None:
    proc = review(run_cli, repo, "-o", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["files"] == []
    assert "the diff is empty (the working tree): nothing to review" in proc.stderr


def test_shallow_clone_says_how_to_deepen(run_cli, repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo}",
        str(clone))
    one_line_error(review(run_cli, clone, "--diff", "HEAD~1..HEAD"), 2, "git fetch --deepen")
    (clone / "app.py").write_text("import pickle\n")
    assert files_of(review(run_cli, clone, "-o", "json")) == ["app.py"]  # beside it


def test_options_that_do_not_fit_the_mode(run_cli, repo: Path) -> None:
    one_line_error(run_cli("--headless", "-p", "hi", "-o", "sarif", cwd=repo), 2,
                   "--output sarif is not available with --mode chat")
    one_line_error(run_cli("--headless", "-p", "hi", "--diff", "HEAD", cwd=repo), 2,
                   "--diff needs --mode code-review")
    one_line_error(review(run_cli, repo, "--staged", "--base", "main"), 2,
                   "--staged and --base cannot be used together")
