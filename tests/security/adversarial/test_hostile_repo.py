"""A hostile repository, driven through the real ``aiagent --headless``: a cloned repository
whose ``.git/config`` and ``.gitattributes`` name programs (fsmonitor, textconv, a clean
filter, hooks, a pager, gpg). The model calls every git tool in full-auto mode; none of those
programs may run, and the tools still do their work.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_CALLS = [
    ("git_status", {}),
    ("git_diff", {}),
    ("git_log", {}),
    ("git_commit", {"message": "agent commit", "paths": ["README.md"]}),
    ("git_branch", {"name": "topic", "checkout": True}),
]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def _make_repo(project: Path) -> None:
    _git(project, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Test"), ("user.email", "t@example.com"), ("commit.gpgsign", "false")):
        _git(project, "config", key, value)
    _git(project, "add", "README.md")
    _git(project, "commit", "-qm", "first")
    (project / "README.md").write_text("hello\nchanged by the user\n")


def _make_hostile(project: Path, marker: Path) -> str:
    """What a cloned hostile repository could hold; returns the program's path."""
    evil = project.parent / "evil.sh"
    evil.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\nif [ -f \"$1\" ]; then cat \"$1\"; else cat; fi\n")
    evil.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "pager.log", "diff.external", "diff.x.textconv",
                "filter.x.clean", "filter.x.smudge", "gpg.program"):
        _git(project, "config", key, str(evil))
    _git(project, "config", "commit.gpgSign", "true")
    (project / ".gitattributes").write_text("* diff=x filter=x\n")
    for hook in ("pre-commit", "post-commit", "post-checkout", "reference-transaction"):
        path = project / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\n{evil} {hook} </dev/null\n")
        path.chmod(0o755)
    return str(evil)


def test_plain_git_in_this_repository_runs_the_program(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    _make_repo(project)
    _make_hostile(project, marker)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG")}
    subprocess.run(["git", "status"], cwd=project, env=env, capture_output=True, check=False)
    assert marker.exists()  # the fixture is really hostile


def test_git_tools_in_a_hostile_repository_run_nothing(agent_run, project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    _make_repo(project)
    _make_hostile(project, marker)
    run = agent_run(GIT_CALLS, "--approval-mode", "full-auto")
    assert run.proc.returncode == 0, run.proc.stderr
    assert not marker.exists(), marker.read_text()
    results = run.tool_results()
    assert "M README.md" in results  # git_status saw the change
    assert "+changed by the user" in results  # git_diff showed it
    assert "agent commit" in _git(project, "log", "--format=%s", "-1")
    assert _git(project, "branch", "--show-current").strip() == "topic"
    assert not marker.exists()


def test_a_config_written_by_the_model_is_not_run_either(agent_run, project: Path, tmp_path: Path) -> None:
    """The model writes .git/config itself (if that write is allowed), then calls git tools."""
    marker = tmp_path / "marker"
    _make_repo(project)
    evil = _make_hostile(project, marker)
    config = (project / ".git" / "config").read_text()
    calls = [("write_file", {"file_path": ".git/config",
                             "content": config + f"[core]\n\tfsmonitor = {evil}\n"}), *GIT_CALLS]
    run = agent_run(calls, "--approval-mode", "full-auto")
    assert run.proc.returncode == 0, run.proc.stderr
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize("mode", ["read-only", "full-auto"])
def test_a_clean_repository_works_in_every_mode(agent_run, project: Path, mode: str) -> None:
    _make_repo(project)
    run = agent_run([("git_status", {}), ("git_log", {})], "--approval-mode", mode)
    assert run.proc.returncode == 0, run.proc.stderr
    assert "M README.md" in run.tool_results() and "first" in run.tool_results()


def _user_config(tmp_path: Path, text: str) -> None:
    config = tmp_path / "home" / ".config" / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)


def test_git_run_by_a_shell_command_runs_no_repository_program(agent_run, project: Path,
                                                                tmp_path: Path) -> None:
    """Outside the sandbox too (the user turned it off): a `git status` the model runs in the
    shell gets the hardening configuration in its environment, so fsmonitor, hooks and
    drivers of the repository stay unrun, and git still answers."""
    marker = tmp_path / "marker"
    _make_repo(project)
    _make_hostile(project, marker)
    _user_config(tmp_path, '[sandbox]\nbackend = "none"\n\n[tools.shell]\nlogin = false\n')
    calls = [("shell_command", {"command": "git status --short; git diff | head -5; git log -1 --oneline"})]
    run = agent_run(calls, "--approval-mode", "full-auto")
    assert run.proc.returncode == 0, run.proc.stderr
    results = run.tool_results()
    # status and log answer; `git diff` stops instead of running the repository's external
    # diff (the git_diff tool, which can pass --no-ext-diff, shows the change)
    assert "M README.md" in results and "first" in results
    assert "external diff died" in results
    assert not marker.exists(), marker.read_text()


def test_commands_do_not_get_the_agents_credentials(agent_run, project: Path,
                                                     tmp_path: Path) -> None:
    """Provider keys and tokens stay out of a command's environment (a repository's test
    script could print or send them); a user can hand named ones on with keep_env."""
    _user_config(tmp_path, '[tools.shell]\nlogin = false\nkeep_env = ["GITHUB_TOKEN"]\n')
    probe = ('for v in OPENAI_API_KEY ANTHROPIC_API_KEY NPM_TOKEN GITHUB_TOKEN HOME; do '
             'if [ -n "$(printenv $v)" ]; then echo "$v=set"; else echo "$v=unset"; fi; done')
    run = agent_run([("shell_command", {"command": probe})], "--approval-mode", "full-auto",
                    env={"ANTHROPIC_API_KEY": "sk-ant-x", "NPM_TOKEN": "npm_x",
                         "GITHUB_TOKEN": "ghp_x"})
    assert run.proc.returncode == 0, run.proc.stderr
    results = run.tool_results()
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NPM_TOKEN"):
        assert f"{name}=unset" in results
    assert "GITHUB_TOKEN=set" in results and "HOME=set" in results
