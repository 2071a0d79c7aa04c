"""Posting the review: the exact requests a fake GitHub/GitLab API on loopback receives,
updating our own comments on a second run, and the errors when posting cannot work."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from review_helpers import FakeGitHub, FakeGitLab

from aiagent.testing import FakeLLM, Turn

BUG = {"category": "bug", "severity": "high", "file": "app.py", "start_line": 12,
       "end_line": 13, "title": "items are ints: .price fails",
       "explanation": "item.price raises AttributeError; ping @octocat <!-- x -->"}


def github_env(server: FakeGitHub, tmp_path: Path) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {
        "number": 7, "head": {"sha": "c0ffee" * 6 + "abcd"}}}))
    return {"GITHUB_TOKEN": "ghs_testtoken", "GITHUB_REPOSITORY": "octo/app",
            "GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": server.url}


def gitlab_env(server: FakeGitLab) -> dict[str, str]:
    return {"CI_API_V4_URL": server.url + "/api/v4", "CI_PROJECT_ID": "group/app",
            "CI_MERGE_REQUEST_IID": "3", "GITLAB_TOKEN": "glpat-test"}


def run_review(run_cli, repo: Path, output: str, env: dict[str, str], *args: str):
    with FakeLLM([Turn(text=json.dumps({"findings": [BUG]}))]) as fake:
        env = {**env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-1"}
        return run_cli("--headless", "--mode", "code-review", "--diff", "main..feature",
                       "-o", output, *args, cwd=repo, env=env)


def calls(server: Any) -> list[tuple[str, str]]:
    return [(r["method"], r["path"]) for r in server.requests]


def test_github_review_then_update_not_duplicate(run_cli, repo: Path, github: FakeGitHub,
                                                 tmp_path: Path) -> None:
    env = github_env(github, tmp_path)
    proc = run_review(run_cli, repo, "github", env)
    assert proc.returncode == 0, proc.stderr
    base = "/repos/octo/app"
    assert calls(github) == [
        ("GET", f"{base}/issues/7/comments"), ("POST", f"{base}/issues/7/comments"),
        ("GET", f"{base}/pulls/7/comments"), ("POST", f"{base}/pulls/7/reviews")]
    assert github.requests[0]["headers"]["Authorization"] == "Bearer ghs_testtoken"
    assert github.requests[0]["query"] == "per_page=100"
    review = github.requests[3]["json"]
    assert review["event"] == "COMMENT" and review["commit_id"] == "c0ffee" * 6 + "abcd"
    placed = sorted((c["path"], c.get("start_line", 0), c["line"], c["side"])
                    for c in review["comments"])
    assert placed == [("app.py", 0, 14, "RIGHT"), ("app.py", 12, 13, "RIGHT")]
    summary = github.requests[1]["json"]["body"]
    assert summary.startswith("<!-- aiagent-review:summary -->\n## aiagent code review")
    bodies = " ".join(c["body"] for c in review["comments"])
    assert "@\u200bocto" in bodies and "<!-- x -->" not in bodies  # untrusted text neutralised
    assert "@octocat" not in bodies
    assert "summary comment posted; 2 new" in proc.stderr

    github.requests.clear()
    proc = run_review(run_cli, repo, "github", env)
    assert proc.returncode == 0, proc.stderr
    assert calls(github) == [
        ("GET", f"{base}/issues/7/comments"), ("PATCH", f"{base}/issues/comments/101"),
        ("GET", f"{base}/pulls/7/comments")]
    assert len(github.issue_comments) == 1 and len(github.review_comments) == 2
    assert "summary comment updated; 0 new inline comment(s), 0 updated" in proc.stderr


def test_github_dry_run_prints_the_payload_and_posts_nothing(run_cli, repo: Path,
                                                             github: FakeGitHub) -> None:
    proc = run_review(run_cli, repo, "github", {}, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["summary"]["body"].startswith("<!-- aiagent-review:summary -->")
    assert {c["line"] for c in payload["review"]["comments"]} == {13, 14}
    assert github.requests == []


def test_github_unreachable_and_unconfigured(run_cli, repo: Path, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    env = {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "octo/app",
           "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
           "GITHUB_API_URL": f"http://127.0.0.1:{port}"}
    (tmp_path / "event.json").write_text('{"pull_request": {"number": 7}}')
    proc = run_review(run_cli, repo, "github", env)
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("aiagent: error:")]
    assert proc.returncode == 3 and len(errors) == 1, proc.stderr
    assert "cannot reach the GitHub API" in errors[0] and "Traceback" not in proc.stderr
    proc = run_review(run_cli, repo, "github", {k: v for k, v in env.items()
                                                if k != "GITHUB_TOKEN"})
    assert proc.returncode == 2 and "GITHUB_TOKEN is not set" in proc.stderr
    (tmp_path / "event.json").write_text('{"ref": "refs/heads/main"}')
    proc = run_review(run_cli, repo, "github", env)
    assert proc.returncode == 2 and "not a pull_request event" in proc.stderr


def test_gitlab_discussions_then_update(run_cli, repo: Path, gitlab: FakeGitLab) -> None:
    proc = run_review(run_cli, repo, "gitlab", gitlab_env(gitlab))
    assert proc.returncode == 0, proc.stderr
    mr = "/api/v4/projects/group%2Fapp/merge_requests/3"
    assert calls(gitlab) == [
        ("GET", mr), ("GET", f"{mr}/notes"), ("POST", f"{mr}/notes"),
        ("GET", f"{mr}/discussions"), ("POST", f"{mr}/discussions"),
        ("POST", f"{mr}/discussions")]
    assert gitlab.requests[0]["headers"]["PRIVATE-TOKEN"] == "glpat-test"
    positions = sorted(r["json"]["position"]["new_line"] for r in gitlab.requests[4:])
    assert positions == [13, 14]
    position = gitlab.requests[4]["json"]["position"]
    assert position["position_type"] == "text" and position["new_path"] == "app.py"
    assert position["old_path"] == "app.py"
    assert (position["base_sha"], position["start_sha"], position["head_sha"]) == \
        ("b" * 40, "s" * 40, "h" * 40)

    gitlab.requests.clear()
    proc = run_review(run_cli, repo, "gitlab", gitlab_env(gitlab))
    assert proc.returncode == 0, proc.stderr
    assert calls(gitlab) == [("GET", mr), ("GET", f"{mr}/notes"), ("PUT", f"{mr}/notes/501"),
                             ("GET", f"{mr}/discussions")]
    assert len(gitlab.notes) == 1 and len(gitlab.discussions) == 2
