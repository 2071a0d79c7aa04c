"""A hostile model writes into .git (fsmonitor, hooks), the agent's own folders and its
instruction files, through the real ``aiagent --headless``: refused in every approval mode
and through grants. Beside each, the ordinary write or commit that still runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

FSMONITOR = "[core]\n\tfsmonitor = {hook}\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "first")
    (project / "link").symlink_to(project / ".git")
    return project


def hook(project: Path, marker: Path) -> Path:
    script = project / "fsmonitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("mode", ["full-auto", "auto-edit"])
def test_a_model_cannot_plant_fsmonitor(agent_run, repo: Path, tmp_path: Path, mode: str) -> None:
    marker = tmp_path / "fsmonitor-ran"
    config = (repo / ".git" / "config").read_text()
    content = config + FSMONITOR.format(hook=hook(repo, marker))
    run = agent_run([("write_file", {"file_path": ".git/config", "content": content}),
                     ("git_status", {}),
                     ("write_file", {"file_path": "notes.txt", "content": "legit\n"})],
                    "--approval-mode", mode)
    assert (repo / ".git" / "config").read_text() == config
    assert not marker.exists()
    assert ".git/ is protected" in run.tool_results()
    assert (repo / "notes.txt").read_text() == "legit\n"  # the ordinary write ran


HOSTILE = {
    "GIT-upper": ".GIT/config", "dotdot": "src/../.git/config", "symlink": "link/config",
    "hook": ".git/hooks/pre-commit", "agent-config": ".agent/config.toml",
    "instructions": "AGENTS.md", "skill": ".claude/skills/x/SKILL.md",
    "agents-skill": ".agents/skills/y/run.py",
}
LEGIT = ["src/x.py", ".gitignore", ".github/workflows/ci.yml", ".gitattributes"]


def test_protected_paths_refused_in_auto_edit(agent_run, repo: Path) -> None:
    (repo / "src").mkdir()
    calls = [("write_file", {"file_path": p, "content": "#!/bin/sh\necho pwned\n"})
             for p in (*HOSTILE.values(), *LEGIT)]
    run = agent_run(calls, "--approval-mode", "auto-edit")
    assert run.proc.returncode == 0, run.proc.stderr
    for name, path in HOSTILE.items():
        target = repo / path
        assert not target.exists() or "pwned" not in target.read_text(), name
    assert not (repo / ".GIT").exists()
    for path in LEGIT:
        assert (repo / path).read_text().endswith("echo pwned\n"), path


@pytest.mark.parametrize("grant", ["--approve", "saved"])
def test_grants_do_not_open_git(agent_run, run_cli, repo: Path, grant: str) -> None:
    args = ["--approval-mode", "prompt"]
    if grant == "saved":
        saved = run_cli("permissions", "allow", "write", cwd=repo)
        assert saved.returncode == 0, saved.stderr
    else:
        args += ["--approve", "write"]
    before = (repo / ".git" / "config").read_text()
    run = agent_run([("write_file", {"file_path": ".git/config", "content": "[core]\n"}),
                     ("write_file", {"file_path": "ok.txt", "content": "ok\n"})], *args)
    assert (repo / ".git" / "config").read_text() == before
    assert (repo / "ok.txt").read_text() == "ok\n"
    assert "needs approval" in run.tool_results()


def test_apply_patch_into_git_is_refused(agent_run, repo: Path) -> None:
    patch = ("*** Begin Patch\n*** Add File: ok.txt\n+ok\n"
             "*** Add File: .git/hooks/post-checkout\n+#!/bin/sh\n+echo pwned\n*** End Patch")
    run = agent_run([("apply_patch", {"input": patch})], "--approval-mode", "full-auto")
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert "needs approval" in run.tool_results()
    good = "*** Begin Patch\n*** Add File: ok.txt\n+ok\n*** End Patch"
    agent_run([("apply_patch", {"input": good})], "--approval-mode", "full-auto")
    assert (repo / "ok.txt").read_text() == "ok\n"


def test_git_commit_still_commits(agent_run, repo: Path) -> None:
    (repo / "README.md").write_text("changed\n")
    run = agent_run([("git_commit", {"message": "agent commit", "all": True})],
                    "--approval-mode", "full-auto",
                    env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com",
                         "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@example.com"})
    assert run.proc.returncode == 0, run.proc.stderr
    assert git(repo, "log", "-1", "--format=%s").strip() == "agent commit"
