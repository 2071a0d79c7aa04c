"""Issue 11, class 1: command classification, through the real ``aiagent`` command.

The model calls ``shell`` with lines that try to create a marker file in the project while
looking read-only, or while looking like the granted ``npm test``. None may run; the model
is told each needs approval. Beside them, the legitimate forms run: a read-only ``git log``
in a real repository, a granted ``npm test``. (Read-only mode does not sandbox commands yet,
so these tests prove the analysis, not a sandbox.)
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

READ_ONLY_BYPASSES = [
    "git log -1 #x\ntouch {m}",
    "ls te#st; touch {m}",
    "ls $'\\x3b' && touch {m}",
    "$'\\x74ouch' {m}",
    "git grep -O'touch {m} #' hello",
    "git grep --open-files-in-pager='touch {m} #' hello",
    "git diff --output={m}",
    "git log --out={m} -1",
    "sort -o {m} README.md",
    "sort -uo{m} README.md",
    "find . -name README.md -fprint {m}",
    "find . -name README.md -exec touch {m} \\;",
    "sed -n 'w {m}' README.md",
    "awk 'BEGIN{{system(\"touch {m}\")}}'",
    "echo x | tee {m}",
    "uniq README.md {m}",
    "ls | xargs touch {m}",
    "ls > {m}",
    "ls &> {m}",
    "command touch {m}",
    "env -S 'touch {m}'",
    "git -c core.pager='touch {m} #' log -p -1",
]
GRANT_BYPASSES = [
    "npm test\ntouch {m}",
    "npm te#st; touch {m}",
    "npm test #x\ntouch {m}",
    "npm test && touch {m}",
    "npm test > {m}",
    "npm test $(touch {m})",
    "npm --silent test; touch {m}",
    "./npm test",  # the repository's own npm, not the granted program
    "PATH=.:/usr/bin:/bin npm test",
    "env PATH=. npm test",
]


def _git_repo(project: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    (project / "README.md").write_text("hello\n")
    for argv in (["init", "-q"], ["add", "README.md"], ["commit", "-qm", "first commit here"]):
        subprocess.run(["git", *argv], cwd=project, env=env, check=True)
    (project / "README.md").write_text("hello world\n")  # a diff for git diff --output


def _fake_npm(folder: Path, marker: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    body = f"touch {marker}\n" if marker else 'echo "FAKE-NPM-RAN $*"\n'
    (folder / "npm").write_text("#!/bin/sh\n" + body)
    (folder / "npm").chmod(0o755)
    return folder


def _shell(line: str) -> tuple[str, dict[str, object]]:
    return ("shell_command", {"command": line, "login": False})


def test_read_only_mode_runs_none_of_the_bypasses(agent_run, project: Path) -> None:
    _git_repo(project)
    markers = [f"MARKER{i}" for i in range(len(READ_ONLY_BYPASSES))]
    calls = [_shell(t.format(m=m)) for t, m in zip(READ_ONLY_BYPASSES, markers, strict=True)]
    run = agent_run(calls, "--approval-mode", "read-only", env={"SHELL": "/bin/bash"})
    assert run.proc.returncode == 0, run.proc.stderr
    created = [t for t, m in zip(READ_ONLY_BYPASSES, markers, strict=True) if (project / m).exists()]
    assert created == []
    assert run.tool_results().count("read-only mode: shell_command is not allowed") == len(calls)


def test_read_only_git_log_runs_and_reaches_the_model(agent_run, project: Path) -> None:
    _git_repo(project)
    run = agent_run([_shell("git log --oneline -1 | head -1")], "--approval-mode", "read-only",
                    env={"SHELL": "/bin/bash"})
    assert run.proc.returncode == 0, run.proc.stderr
    assert "first commit here" in run.tool_results()


def test_a_npm_test_grant_runs_none_of_the_bypasses(agent_run, project: Path,
                                                     tmp_path: Path) -> None:
    fakebin = _fake_npm(tmp_path / "fakebin")
    markers = [f"MARKER{i}" for i in range(len(GRANT_BYPASSES))]
    _fake_npm(project, marker="MARKER_FROM_REPO_NPM")  # ./npm, and npm when PATH has "."
    calls = [_shell(t.format(m=m)) for t, m in zip(GRANT_BYPASSES, markers, strict=True)]
    run = agent_run(calls, "--approval-mode", "prompt", "--approve", "shell:npm test",
                    env={"PATH": f"{fakebin}:{os.environ['PATH']}", "SHELL": "/bin/bash"})
    assert run.proc.returncode == 0, run.proc.stderr
    created = [t for t, m in zip(GRANT_BYPASSES, markers, strict=True) if (project / m).exists()]
    assert created == []
    assert not (project / "MARKER_FROM_REPO_NPM").exists()
    assert run.tool_results().count("needs approval") == len(calls)
    assert "FAKE-NPM-RAN" not in run.tool_results()


@pytest.mark.parametrize("line", ["npm test", "CI=1 npm test -- --watch=false",
                                  "cd . && nice -n 5 npm test 2>&1 # run the tests",
                                  "npm test 2>&1 | tail -5"])
def test_a_granted_npm_test_runs(agent_run, project: Path, tmp_path: Path, line: str) -> None:
    # in the project, as node_modules/.bin is: a granted command runs sandboxed, and the
    # sandbox's /tmp is private, so a program under the host's /tmp would not be found
    fakebin = _fake_npm(project / "node_modules" / ".bin")
    run = agent_run([_shell(line)], "--approval-mode", "prompt", "--approve", "shell:npm test",
                    env={"PATH": f"{fakebin}:{os.environ['PATH']}", "SHELL": "/bin/bash"})
    assert run.proc.returncode == 0, run.proc.stderr
    assert "FAKE-NPM-RAN test" in run.tool_results()
    assert "needs approval" not in run.tool_results()
