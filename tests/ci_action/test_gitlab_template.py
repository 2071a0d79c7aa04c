"""ci/gitlab/aiagent-review.gitlab-ci.yml: its shape, and its script run as a merge request
pipeline would (the job's variables, GitLab's CI_* variables, the workspace a real git
repository) against FakeLLM and the fake GitLab API of the review tests, on loopback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from ci_helpers import AIAGENT_BIN, ROOT, make_pr_repo
from review_helpers import FakeGitLab

from aiagent.engines.security.scanners.config_actions import scan_gitlab
from aiagent.testing import FakeLLM, Turn

TEMPLATE = ROOT / "ci" / "gitlab" / "aiagent-review.gitlab-ci.yml"
SARIF_SCHEMA = ROOT / "tests" / "security" / "fixtures" / "sarif-schema-2.1.0.json"
BUG = {"category": "bug", "severity": "high", "file": "app.py", "start_line": 12,
       "end_line": 13, "title": "items are ints: .price fails", "explanation": "AttributeError."}
HOSTILE = "$(touch pwned1) `touch pwned2` \"; touch pwned3"


def job() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(TEMPLATE.read_text())
    return dict(data["aiagent-review"])


def run_job(tmp_path: Path, clean_env: dict[str, str], api_url: str,
            variables: dict[str, str], key: str = "sk-ant-test-1",
            finding: dict[str, Any] = BUG) -> tuple[subprocess.CompletedProcess[str], Path, Any]:
    work = make_pr_repo(tmp_path / "mr", head="feat`touch${IFS}pwned4`")
    spec = job()
    env = {**clean_env, "PATH": f"{AIAGENT_BIN}:{clean_env.get('PATH', '/usr/bin:/bin')}",
           **{k: str(v) for k, v in spec["variables"].items()},
           "CI": "true", "GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event",
           "CI_PROJECT_DIR": str(work), "CI_API_V4_URL": api_url + "/api/v4",
           "CI_PROJECT_ID": "group/app", "CI_MERGE_REQUEST_IID": "3",
           "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
           "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feat`touch${IFS}pwned4`",
           "CI_MERGE_REQUEST_TITLE": HOSTILE, "CI_MERGE_REQUEST_DESCRIPTION": HOSTILE,
           "AIAGENT_GITLAB_TOKEN": "glpat-test", "AIAGENT_REVIEW_INSTALL": "none", **variables}
    with FakeLLM([Turn(text=json.dumps({"findings": [finding]}))]) as fake:
        if key:
            env.update(ANTHROPIC_API_KEY=key, ANTHROPIC_BASE_URL=fake.url)
        script = "\n".join(spec["script"])
        proc = subprocess.run(["sh", "-c", script], cwd=work, env=env, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
    return proc, work, fake


def check_reports(work: Path, count: int) -> None:
    sarif = json.loads((work / "aiagent-review.sarif").read_text())
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    assert len(sarif["runs"][0]["results"]) == count
    quality = json.loads((work / "aiagent-codequality.json").read_text())
    assert len(quality) == count and len({q["fingerprint"] for q in quality}) == count
    for issue in quality:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert issue["location"]["path"] == "app.py" and issue["location"]["lines"]["begin"] >= 1


def test_template_shape() -> None:
    spec = job()
    assert spec["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert spec["variables"]["GIT_DEPTH"] == "0"
    assert spec["artifacts"]["when"] == "always"
    assert spec["artifacts"]["reports"]["codequality"] == "aiagent-codequality.json"
    script = "\n".join(spec["script"])
    for path in spec["artifacts"]["paths"] + [spec["artifacts"]["reports"]["codequality"]]:
        assert f"={path}" in script, path  # each artifact is a --save of the review
    for name in spec["variables"]:  # every variable is used by the script
        assert name == "GIT_DEPTH" or f'"${name}"' in script, name


def test_untrusted_merge_request_values_are_never_unquoted() -> None:
    """The project's own GitLab injection rule finds nothing, and catches a bad copy."""
    text = TEMPLATE.read_text()
    assert scan_gitlab("t.gitlab-ci.yml", text) == []
    bad = text.replace("      set -eu\n", "      set -eu\n      echo $CI_MERGE_REQUEST_TITLE\n", 1)
    assert [f.id for f in scan_gitlab("t.gitlab-ci.yml", bad)] == ["GITLAB-INJECTION-001"]


def test_merge_request_review(tmp_path: Path, clean_env: dict[str, str],
                              gitlab: FakeGitLab) -> None:
    proc, work, fake = run_job(tmp_path, clean_env, gitlab.url, {})
    assert proc.returncode == 1, proc.stderr  # a high finding, AIAGENT_REVIEW_FAIL_ON high
    assert "aiagent code review: exit 1" in proc.stderr
    assert len(fake.requests) == 1
    mr = "/api/v4/projects/group%2Fapp/merge_requests/3"
    assert [(r["method"], r["path"]) for r in gitlab.requests] == [
        ("GET", mr), ("GET", f"{mr}/notes"), ("POST", f"{mr}/notes"),
        ("GET", f"{mr}/discussions"), ("POST", f"{mr}/discussions"),
        ("POST", f"{mr}/discussions")]
    assert gitlab.requests[0]["headers"]["PRIVATE-TOKEN"] == "glpat-test"
    check_reports(work, 2)
    assert list(tmp_path.rglob("pwned*")) == []  # the hostile title and branch stayed data


@pytest.mark.parametrize(("fail_on", "code"), [("none", 0), ("critical", 0), ("medium", 1)])
def test_exit_code_follows_fail_on(tmp_path: Path, clean_env: dict[str, str], gitlab: FakeGitLab,
                                   fail_on: str, code: int) -> None:
    proc, _, _ = run_job(tmp_path, clean_env, gitlab.url, {"AIAGENT_REVIEW_FAIL_ON": fail_on})
    assert proc.returncode == code, proc.stderr


def test_missing_key_is_one_line(tmp_path: Path, clean_env: dict[str, str],
                                 gitlab: FakeGitLab) -> None:
    proc, work, _ = run_job(tmp_path, clean_env, gitlab.url, {}, key="")
    assert proc.returncode == 2 and gitlab.requests == []
    assert proc.stderr.strip().splitlines() == [
        "aiagent: error: no API key for anthropic: set it as a masked CI/CD variable, or "
        'AIAGENT_REVIEW_REQUIRE_MODEL: "false" for the static part only']
    proc, work, _ = run_job(tmp_path / "again", clean_env, gitlab.url,
                            {"AIAGENT_REVIEW_REQUIRE_MODEL": "false"}, key="")
    assert proc.returncode == 1, proc.stderr  # the static finding is high
    check_reports(work, 1)


class RefusingGitLab(FakeGitLab):
    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        return (500, {"message": "500 Internal Server Error"}) if method == "POST" else \
            super().answer(method, path, body)


def test_a_refusing_api_keeps_the_reports(tmp_path: Path, clean_env: dict[str, str],
                                          serve: Any) -> None:
    api = serve(RefusingGitLab())
    proc, work, _ = run_job(tmp_path, clean_env, api.url, {"AIAGENT_REVIEW_FAIL_ON": "none"})
    assert proc.returncode == 3 and "HTTP 500" in proc.stderr, proc.stderr
    check_reports(work, 2)
