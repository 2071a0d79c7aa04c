"""Saved approvals through the real CLI: an "always" grant for `npm test` persists across
processes and does not cover `npm publish`; revocation takes effect at once; headless
refuses without waiting."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".agent").mkdir(parents=True)
    # no login shell, so the fake npm on PATH is the one found
    (folder / ".agent" / "config.toml").write_text("[tools.shell]\nlogin = false\n")
    return folder


@pytest.fixture
def npm_env(project: Path, clean_env: dict[str, str]) -> dict[str, str]:
    """A fake `npm` on PATH that records how it was called. It lives in the project, as
    node_modules/.bin does: granted commands run sandboxed with a private /tmp, where a
    program under the host's /tmp would not be found."""
    bindir = project / "node_modules" / ".bin"
    bindir.mkdir(parents=True)
    npm = bindir / "npm"
    npm.write_text(f'#!/bin/sh\necho "npm ran: $*" >> {project}/npm.log\necho "npm ran: $*"\n')
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{bindir}{os.pathsep}{clean_env['PATH']}"}


def _env(fake: FakeLLM, extra: dict[str, str]) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456", **extra}


def _results(fake: FakeLLM) -> list[str]:
    """Tool results the model received, in order."""
    seen: list[str] = []
    for request in fake.requests:
        for message in request["json"]["messages"]:
            for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result":
                    text = block["content"] if isinstance(block["content"], str) else json.dumps(block["content"])
                    if text not in seen:
                        seen.append(text)
    return seen


def _npm_turns(*commands: str) -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("shell_command", {"command": c})]) for c in commands] + [Turn(text="ok")]


def test_always_grant_persists_and_is_prefix_scoped(run_cli, project: Path, npm_env, tmp_path: Path) -> None:
    granted = run_cli("permissions", "allow", "shell:npm test", cwd=project, env=npm_env)
    assert granted.returncode == 0, granted.stderr
    grant_id = granted.stdout.split()[0]
    with FakeLLM(_npm_turns("npm test -- --watch=false")) as fake:
        one = run_cli("--headless", "-p", "run the tests", cwd=project, env=_env(fake, npm_env))
        first = _results(fake)
    assert one.returncode == 0, one.stderr
    assert "npm ran: test -- --watch=false" in first[0]
    # a second process: the grant is still there, and does not cover publish
    with FakeLLM(_npm_turns("CI=1 npm test", "npm publish", "npm test && npm publish")) as fake:
        two = run_cli("--headless", "-p", "test and publish", cwd=project, env=_env(fake, npm_env))
        second = _results(fake)
    assert two.returncode == 0, two.stderr
    assert "npm ran: test" in second[0]
    assert "needs approval" in second[1] and "npm publish" in second[1] and "--approve" in second[1]
    assert "needs approval" in second[2]
    assert (project / "npm.log").read_text().count("publish") == 0
    # revoke: the next process is refused at once
    revoked = run_cli("permissions", "revoke", grant_id, cwd=project)
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    with FakeLLM(_npm_turns("npm test")) as fake:
        three = run_cli("--headless", "-p", "test again", cwd=project, env=_env(fake, npm_env))
        third = _results(fake)
    assert three.returncode == 0
    assert "needs approval" in third[0]
    log = run_cli("permissions", "log", cwd=project).stdout
    assert "grant" in log and "use" in log and "refuse" in log and "revoke" in log


def test_headless_refuses_writes_without_blocking(run_cli, project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "x"})]),
              Turn(text="could not write")]
    with FakeLLM(script) as fake:
        start = time.monotonic()
        proc = run_cli("--headless", "-p", "write a.txt", cwd=project, env=_env(fake, {}), timeout=30)
        elapsed = time.monotonic() - start
        results = _results(fake)
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 15
    assert not (project / "a.txt").exists()
    assert "needs approval" in results[0] and "--approve write:a.txt" in results[0]


def test_approve_flag_and_modes(run_cli, project: Path, npm_env) -> None:
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "src/a.txt", "content": "x"})]),
              Turn(tool_calls=[ToolCall("write_file", {"file_path": "b.txt", "content": "y"})]),
              Turn(text="done")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "--approve", "write:src/", "-p", "write", cwd=project,
                       env=_env(fake, npm_env))
        results = _results(fake)
    assert proc.returncode == 0, proc.stderr
    assert (project / "src" / "a.txt").exists() and not (project / "b.txt").exists()
    assert "needs approval" in results[1]
    with FakeLLM(script[1:]) as fake:
        proc = run_cli("--headless", "--approval-mode", "auto-edit", "-p", "write", cwd=project,
                       env=_env(fake, npm_env))
    assert proc.returncode == 0 and (project / "b.txt").exists()
    with FakeLLM(_npm_turns("npm test")) as fake:
        proc = run_cli("--headless", "--approval-mode", "read-only", "--approve", "shell:npm", "-p",
                       "t", cwd=project, env=_env(fake, npm_env))
        results = _results(fake)
    assert "read-only mode" in results[0]


def test_config_deny_wins_over_approve(run_cli, project: Path, npm_env) -> None:
    config = project / ".agent" / "config.toml"
    config.write_text(config.read_text() + '[permissions]\ndeny = ["shell:npm publish"]\n')
    with FakeLLM(_npm_turns("npm publish")) as fake:
        proc = run_cli("--headless", "--approve", "shell:npm", "-p", "publish", cwd=project,
                       env=_env(fake, npm_env))
        results = _results(fake)
    assert proc.returncode == 0, proc.stderr
    assert "denied by rule 'shell:npm publish'" in results[0]


def test_permissions_cli(run_cli, project: Path) -> None:
    assert run_cli("permissions", "list", cwd=project).stdout.strip() == "no saved grants"
    run_cli("permissions", "allow", "shell:make", cwd=project)
    run_cli("permissions", "deny", "--project", "shell:git push", cwd=project)
    listing = run_cli("permissions", "list", cwd=project).stdout
    assert "allow  shell:make" in listing and "deny   shell:git push" in listing
    cleared = run_cli("permissions", "clear", "--project", cwd=project)
    assert cleared.stdout.strip() == "revoked 1 grant"
    bad = run_cli("permissions", "revoke", "999", cwd=project)
    assert bad.returncode == 2 and "no grant 999" in bad.stderr
    empty = run_cli("permissions", "allow", ":x", cwd=project)
    assert empty.returncode == 2 and "TOOL" in empty.stderr
