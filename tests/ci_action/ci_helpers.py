"""Helpers for the CI action tests: a pull request in a real git repository (an origin, a
base branch and a PR commit, checked out the way actions/checkout does with fetch-depth 0),
the fake GitHub/GitLab APIs of the review tests on loopback, and the job that runs action.yml on it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipelines" / "review"))
from action_runner import Result, Runner, github_env  # noqa: E402
from review_helpers import BASE_APP, FEATURE_APP, Recorder, git  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
AIAGENT_BIN = Path(sys.executable).parent  # the venv's `aiagent` (install: "false")
BASE_BRANCH = "main"
HEAD_BRANCH = "feature"


def make_pr_repo(root: Path, base: str = BASE_BRANCH, head: str = HEAD_BRANCH) -> Path:
    """origin (bare) with ``base``; the workspace: a clone, the PR commit on ``head``,
    checked out detached as a pull_request checkout is. Returns the workspace."""
    seed = root / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q", "-b", base)
    (seed / "app.py").write_text(BASE_APP)
    git(seed, "add", "-A")
    git(seed, "commit", "-qm", "base")
    git(root, "clone", "-q", "--bare", str(seed), str(root / "origin.git"))
    work = root / "work"
    git(root, "clone", "-q", str(root / "origin.git"), str(work))
    git(work, "checkout", "-qb", head)
    (work / "app.py").write_text(FEATURE_APP)
    git(work, "commit", "-qam", "feature")
    git(work, "checkout", "-q", "--detach", "HEAD")
    shutil.rmtree(seed)
    return work


def pr_event(work: Path, base: str, head: str, title: str) -> dict[str, Any]:
    return {"action": "opened", "number": 7,
            "pull_request": {"number": 7, "title": title, "body": title,
                             "head": {"ref": head, "sha": git(work, "rev-parse", "HEAD")},
                             "base": {"ref": base, "sha": git(work, "rev-parse", f"origin/{base}")}},
            "repository": {"full_name": "octo/app"}}


class ActionCase:
    """One pull request and the environment of the job that runs the action on it."""

    def __init__(self, tmp: Path, clean_env: dict[str, str], api: Recorder,
                 base: str = BASE_BRANCH, head: str = HEAD_BRANCH,
                 title: str = "Sum prices") -> None:
        self.tmp, self.api = tmp, api
        self.work = make_pr_repo(tmp / "pr", base, head)
        self.event = pr_event(self.work, base, head, title)
        self.event_path = tmp / "event.json"
        self.event_path.write_text(json.dumps(self.event))
        self.temp = tmp / "runner-temp"
        self.temp.mkdir()
        env = {**clean_env, "PATH": f"{AIAGENT_BIN}:{clean_env.get('PATH', '/usr/bin:/bin')}"}
        self.env = github_env(self.work, self.event_path, api.url, self.temp, self.event, env)
        self.github = {"base_ref": base, "head_ref": head, "event_name": "pull_request",
                       "repository": "octo/app", "workspace": str(self.work),
                       "token": "ghs_testtoken"}

    def run(self, inputs: dict[str, str], env: dict[str, str] | None = None,
            action_dir: Path = ROOT, first: int = 0) -> Result:
        runner = Runner(action_dir, self.work, {**self.env, **(env or {})}, self.github, self.temp)
        return runner.run({"install": "false", **inputs}, first=first)


