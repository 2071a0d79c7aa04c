"""The CI examples under examples/ci/ (FR-2.8): they parse, they have the shape each CI
expects, the GitHub workflow passes zizmor, every ``aiagent`` command in them uses flags
the real command has, and the log-analysis steps run for real on a generated log."""

from __future__ import annotations

import gzip
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from log_scenarios import db_pool_deploy

ROOT = Path(__file__).resolve().parents[3]
CI = ROOT / "examples" / "ci"
BIN = Path(sys.executable).parent
ZIZMOR = BIN / "zizmor"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
# Flags of `--mode=code-review`, added by the code-review pipeline (issue 15) beside this one.
def workflow() -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load((CI / "github-actions.yml").read_text())
    return data


def test_github_workflow_shape() -> None:
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"pull_request", "push"} and "pull_request_target" not in triggers
    assert data["permissions"] == {}  # every job asks for what it needs, no more
    review, audit = data["jobs"]["code-review"], data["jobs"]["security-audit"]
    assert review["if"] == "github.event_name == 'pull_request'"
    assert review["permissions"] == {"contents": "read", "pull-requests": "write",
                                     "security-events": "write"}
    assert audit["if"] == "github.event_name == 'push'"
    for job in (review, audit):
        uses = [step["uses"] for step in job["steps"] if "uses" in step]
        assert all(PINNED.match(u) for u in uses), uses
        assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
        checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
        assert checkout["with"]["persist-credentials"] is False
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), "expressions go through env:, not into scripts"
    assert review["steps"][0]["with"]["fetch-depth"] == 0
    runs = " ".join(s.get("run", "") for s in review["steps"])
    assert "-o sarif" in runs and "-o github" in runs


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    if not ZIZMOR.exists():
        pytest.skip("needs zizmor: install the test extra (pip install -e '.[test]')")
    return subprocess.run([str(ZIZMOR), "--offline", "--no-progress", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_github_workflow_passes_zizmor() -> None:
    proc = zizmor(CI / "github-actions.yml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout + proc.stderr


def test_zizmor_catches_a_broken_workflow(tmp_path: Path) -> None:
    """The check can fail: a title pasted into a script is a template injection."""
    text = (CI / "github-actions.yml").read_text().replace(
        "run: python -m pip install aiagent",
        "run: echo ${{ github.event.pull_request.title }} && python -m pip install aiagent", 1)
    bad = tmp_path / "bad.yml"
    bad.write_text(text)
    proc = zizmor(bad)
    assert proc.returncode != 0 and "template-injection" in proc.stdout + proc.stderr


def test_gitlab_ci_shape() -> None:
    data = yaml.safe_load((CI / "gitlab-ci.yml").read_text())
    jobs = {k: v for k, v in data.items() if isinstance(v, dict) and "script" in v}
    assert set(jobs) == {"aiagent-code-review", "aiagent-security-audit", "aiagent-log-analysis"}
    assert {job["stage"] for job in jobs.values()} == set(data["stages"])
    review = jobs["aiagent-code-review"]
    assert review["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert review["variables"]["GIT_DEPTH"] == "0"
    assert all(isinstance(line, str) for job in jobs.values() for line in job["script"])


def test_jenkinsfile_shape() -> None:
    text = (CI / "Jenkinsfile").read_text()
    code = re.sub(r"//[^\n]*|'[^'\n]*'|\"[^\"\n]*\"", "", text)  # no comments or strings
    assert code.count("{") == code.count("}") and code.count("(") == code.count(")")
    assert text.lstrip("/ \n").startswith("aiagent in Jenkins")
    assert re.search(r"^pipeline \{", text, re.M) and "stages {" in text
    for stage in ("Code review", "Security audit", "Deploy"):
        assert f"stage('{stage}')" in text


def commands() -> list[tuple[str, list[str]]]:
    """Every ``aiagent`` command line in the examples, split like a shell would."""
    found = []
    for path in sorted(CI.iterdir()):
        text = path.read_text().replace("\\\n", " ")
        for line in text.splitlines():
            m = re.search(r"(?:^|[\s'])(?:~/\.local/bin/)?aiagent (--|security-audit)", line)
            if m is None or line.lstrip().startswith(("#", "//")):
                continue
            tail = line[m.start():].strip().lstrip("'- ").rstrip("'")
            tail = re.split(r"\s(?:>|\|\||\|)\s", tail)[0]
            found.append((path.name, shlex.split(tail)[1:]))
    return found


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    aiagent = str(BIN / "aiagent")
    return {name: subprocess.run([aiagent, *args, "--help"], capture_output=True, text=True,
                                 check=True).stdout
            for name, args in (("top", []), ("security-audit", ["security-audit"]))}


def test_every_aiagent_command_uses_real_flags(helps: dict[str, str]) -> None:
    found = commands()
    assert len(found) >= 9, found
    for where, args in found:
        help_text = helps["security-audit" if args[0] == "security-audit" else "top"]
        for i, arg in enumerate(args):
            flag = arg.split("=")[0]
            if not flag.startswith("-"):
                continue
            known = flag in help_text
            assert known, f"{where}: {flag} is not an aiagent option"
            if flag == "-o":
                value = args[i + 1]
                assert value in help_text, (where, value)
            if flag == "--mode":
                assert arg.split("=")[1] in ("code-review", "log-analysis"), (where, arg)


def test_the_log_analysis_steps_run(tmp_path: Path, clean_env: dict[str, str]) -> None:
    """The GitLab job's script and the Jenkins failure step, run by bash on a real log."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "app.log.gz").write_bytes(gzip.compress(db_pool_deploy(6).encode()))
    (tmp_path / "deploy.log").write_text(db_pool_deploy(6))
    job = yaml.safe_load((CI / "gitlab-ci.yml").read_text())["aiagent-log-analysis"]
    jenkins = re.search(r"sh '(~/\.local/bin/aiagent --headless --mode=log-analysis[^']*)'",
                        (CI / "Jenkinsfile").read_text())
    assert jenkins is not None
    env = {**clean_env, "PATH": f"{BIN}{os.pathsep}{clean_env['PATH']}",
           "OLLAMA_HOST": "127.0.0.1:9", **job["variables"]}
    for script in ["\n".join(job["script"]), jenkins.group(1).replace("~/.local/bin/", "")]:
        proc = subprocess.run(["bash", "-euc", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        report = (tmp_path / "incident.md").read_text()
        assert report.startswith("# Log analysis: ") and "Request failed for order" in report
        (tmp_path / "incident.md").unlink()
