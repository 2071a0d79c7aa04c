"""The composite action run step by step (tests/ci_action/action_runner.py) on a real pull
request: GitHub's environment, FakeLLM as the provider and a fake GitHub API, both on
loopback. The ``uses:`` step (the SARIF upload) is not run; what it would get is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ci_helpers import ActionCase
from review_helpers import FakeGitHub, git

from aiagent.testing import FakeLLM, Turn

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = ROOT / "tests" / "security" / "fixtures" / "sarif-schema-2.1.0.json"
KEY = "sk-ant-test-secret-1"
BUG = {"category": "bug", "severity": "high", "file": "app.py", "start_line": 12,
       "end_line": 13, "title": "items are ints: .price fails",
       "explanation": "item.price raises AttributeError."}


def review(case: ActionCase, inputs: dict[str, str], finding: dict[str, Any] = BUG,
           key: str = KEY) -> tuple[Any, FakeLLM]:
    with FakeLLM([Turn(text=json.dumps({"findings": [finding]}))]) as fake:
        result = case.run({"api-key": key, **inputs}, env={"ANTHROPIC_BASE_URL": fake.url})
    return result, fake


def api_calls(api: Any) -> list[tuple[str, str]]:
    return [(r["method"], r["path"]) for r in api.requests]


def check_sarif(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    jsonschema.validate(data, json.loads(SARIF_SCHEMA.read_text()))
    assert data["version"] == "2.1.0"
    return data


def test_review_comments_sarif_outputs_and_gate(case: ActionCase, github: FakeGitHub) -> None:
    result, fake = review(case, {"fail-on": "high"})
    assert [s.outcome for s in result.steps] == ["success", "success", "success", "failure"], \
        result.log
    # the model was asked once, with the key from the input
    assert len(fake.requests) == 1 and fake.requests[0]["headers"].get("x-api-key") == KEY
    assert KEY not in result.log and all(KEY not in s.summary for s in result.steps)
    # the comments reached the API: a summary and one review with the inline comments
    base = "/repos/octo/app"
    assert api_calls(github) == [
        ("GET", f"{base}/issues/7/comments"), ("POST", f"{base}/issues/7/comments"),
        ("GET", f"{base}/pulls/7/comments"), ("POST", f"{base}/pulls/7/reviews")]
    assert github.requests[0]["headers"]["Authorization"] == "Bearer ghs_testtoken"
    review_body = github.requests[3]["json"]
    assert sorted(c["line"] for c in review_body["comments"]) == [13, 14]
    assert review_body["commit_id"] == case.event["pull_request"]["head"]["sha"]
    # the upload step would get a valid SARIF file with both findings
    upload = result.step("Upload SARIF to code scanning")
    assert upload.uses.startswith("github/codeql-action/upload-sarif@")
    assert upload.with_["category"] == "aiagent-review"
    sarif = check_sarif(case.work / upload.with_["sarif_file"])
    assert len(sarif["runs"][0]["results"]) == 2
    # outputs, step summary, and the gate's exit code
    assert result.outputs == {"sarif-file": "aiagent-review.sarif", "findings": "2",
                              "exit-code": "1",
                              "report-file": str(case.temp / "aiagent-review" / "report.json")}
    assert "## aiagent code review" in result.step("Review").summary
    assert result.step("Result").rc == 1
    assert ("error", "aiagent code review: exit 1: the gate failed (fail-on / max-findings) "
            "(see the Review step)") in result.annotations


@pytest.mark.parametrize(("fail_on", "code"), [("critical", "0"), ("none", "0"), ("medium", "1")])
def test_the_exit_code_follows_fail_on(case: ActionCase, github: FakeGitHub, fail_on: str,
                                       code: str) -> None:
    result, _ = review(case, {"fail-on": fail_on})
    assert result.outputs["exit-code"] == code, result.log
    assert result.failed is (code != "0")
    assert result.step("Result").rc == int(code)


def test_comment_false_posts_nothing_and_prints_the_review(case: ActionCase,
                                                           github: FakeGitHub) -> None:
    result, _ = review(case, {"comment": "false", "fail-on": "none"})
    assert not result.failed, result.log
    assert github.requests == []
    assert "items are ints: .price fails" in result.step("Review").log
    assert result.outputs["findings"] == "2"


def test_model_tools_and_max_findings_reach_the_command(case: ActionCase,
                                                        github: FakeGitHub) -> None:
    result, fake = review(case, {"model": "claude-test-model", "tools": "read_file,glob",
                                 "fail-on": "none", "max-findings": "1"})
    assert fake.requests[0]["json"]["model"] == "claude-test-model", result.log
    tools = {t["name"] for t in fake.requests[0]["json"].get("tools", [])}
    assert tools and tools == {"read_file", "glob"}, tools
    assert result.outputs["exit-code"] == "1", result.log  # 2 findings > max-findings 1
    result, fake = review(case, {"tools": "grep"})
    assert fake.requests == [] and result.outputs["exit-code"] == "2"
    assert "--tools: unknown tool 'grep'" in result.step("Review").log


def test_hostile_title_and_branch_names_do_not_execute(tmp_path: Path, clean_env: dict[str, str],
                                                       github: FakeGitHub) -> None:
    """A PR title and a head branch name made of shell syntax stay data."""
    case = ActionCase(tmp_path, clean_env, github, head="feat`touch${IFS}pwned2`$(touch${IFS}pwned3)",
                      title='$(touch pwned4) `touch pwned5` "; touch pwned6')
    case.env["GITHUB_HEAD_REF"] = case.event["pull_request"]["head"]["ref"]
    result, _ = review(case, {"fail-on": "none"})
    assert not result.failed, result.log
    assert list(tmp_path.rglob("pwned*")) == []
    assert ("POST", "/repos/octo/app/pulls/7/reviews") in api_calls(github)


def test_a_hostile_base_branch_is_refused_not_run(tmp_path: Path, clean_env: dict[str, str],
                                                  github: FakeGitHub) -> None:
    """git allows ``$``, ``(`` and backticks in a branch name; aiagent does not take such a
    revision, and nothing in it runs."""
    case = ActionCase(tmp_path, clean_env, github, base="main$(touch${IFS}pwned1)`touch${IFS}pwned2`")
    result, fake = review(case, {"fail-on": "none"})
    assert list(tmp_path.rglob("pwned*")) == []
    assert result.outputs["exit-code"] == "2" and fake.requests == []
    assert "aiagent: error: --base: 'origin/main$(touch${IFS}pwned1)`touch${IFS}pwned2`' " \
        "is not a revision" in result.step("Review").log


def test_a_missing_api_key_is_one_clear_error(case: ActionCase, github: FakeGitHub) -> None:
    result, fake = review(case, {}, key="")
    assert [s.outcome for s in result.steps] == ["success", "failure", "skipped", "skipped"]
    errors = [text for kind, text in result.annotations if kind == "error"]
    assert errors == ["aiagent: no API key for anthropic: set the api-key input from a secret, "
                      "or require-model: false for the static part only"]
    assert result.step("Review").rc == 2
    assert fake.requests == [] and github.requests == []


def test_require_model_false_runs_the_static_part(case: ActionCase, github: FakeGitHub) -> None:
    result = case.run({"require-model": "false", "fail-on": "high"})  # no key, no model
    assert ("notice", "aiagent: no API key for anthropic: static part only") in result.annotations
    assert result.outputs["findings"] == "1" and result.outputs["exit-code"] == "1", result.log
    assert len(check_sarif(case.work / "aiagent-review.sarif")["runs"][0]["results"]) == 1


class RefusingGitHub(FakeGitHub):
    def __init__(self, status: int) -> None:
        super().__init__()
        self.status = status

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if method != "GET":
            return self.status, {"message": "Resource not accessible by integration"}
        return super().answer(method, path, body)


@pytest.mark.parametrize("status", [403, 500])
def test_a_refusing_api_loses_no_sarif(tmp_path: Path, clean_env: dict[str, str], serve: Any,
                                       status: int) -> None:
    api = serve(RefusingGitHub(status))
    case = ActionCase(tmp_path, clean_env, api)
    result, _ = review(case, {"fail-on": "none"})
    assert result.outputs["exit-code"] == "3", result.log
    upload = result.step("Upload SARIF to code scanning")
    assert upload.outcome == "success"  # still uploaded
    assert len(check_sarif(case.work / upload.with_["sarif_file"])["runs"][0]["results"]) == 2
    assert f"HTTP {status}" in result.step("Review").log
    assert result.step("Result").rc == 3


def test_workflow_commands_in_model_text_are_not_obeyed(case: ActionCase,
                                                        github: FakeGitHub) -> None:
    finding = {**BUG, "explanation": "See below.\n::error::injected by the model\n"
                                      "::add-mask::x"}
    result, _ = review(case, {"comment": "false", "fail-on": "none"}, finding=finding)
    assert "::error::injected by the model" in result.step("Review").log  # printed …
    assert all("injected" not in text for _, text in result.annotations)  # … not obeyed


def test_not_a_pull_request_needs_a_base(case: ActionCase, github: FakeGitHub) -> None:
    case.github["base_ref"] = ""
    result, _ = review(case, {})
    assert result.step("Review").rc == 2
    assert [t for k, t in result.annotations if k == "error"] == [
        "aiagent: nothing to review against: not a pull_request run; set the base input"]
    result, _ = review(case, {"base": "origin/main", "fail-on": "none"})
    assert not result.failed, result.log


def test_a_missing_base_branch_is_fetched_from_origin(case: ActionCase, github: FakeGitHub) -> None:
    """A checkout without the base branch (actions/checkout fetches only the PR's ref): the
    action fetches it."""
    git(case.work, "update-ref", "-d", "refs/remotes/origin/main")
    result, _ = review(case, {"fail-on": "none"})
    assert not result.failed, result.log
    assert git(case.work, "rev-parse", "origin/main") == case.event["pull_request"]["base"]["sha"]
