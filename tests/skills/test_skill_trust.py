"""What a skill's permissions mean at the argument level: path scopes keep their dots,
child processes get a scrubbed environment, and git/exec go through the command analysis."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from skill_helpers import make_runtime

from aiagent.agent.skills.host import HostServices, SkillHost, limited_env
from aiagent.agent.skills.manifest import load_manifest
from aiagent.agent.skills.permissions import PermissionDenied, in_scope

SECRETS = {"OPENAI_API_KEY": "sk-openai-secret", "ANTHROPIC_API_KEY": "sk-ant-secret",
           "GITHUB_TOKEN": "ghp_secret", "AWS_SECRET_ACCESS_KEY": "aws-secret", "DB_PASSWORD": "pw"}


def host_for(project: Path, permissions: list[str], env: dict[str, str] | None = None) -> SkillHost:
    folder = project.parent / "skill-under-test"
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.yaml").write_text(
        f"name: probe\nversion: 1.0.0\ndescription: probe\ntypes: [prompt]\npermissions: {json.dumps(permissions)}\n")
    services = HostServices(root=project, env={"PATH": "/usr/bin:/bin", "HOME": str(project), **(env or {})})
    return SkillHost(services, load_manifest(folder / "SKILL.yaml"))


def call(host: SkillHost, name: str, *args: object) -> object:
    return asyncio.run(host.call(name, list(args), {}))


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=project, check=True,
                   capture_output=True)


# ---- path scopes ---------------------------------------------------------------------


def test_scopes_keep_leading_dots() -> None:
    assert in_scope(".env", ".env") and not in_scope("env", ".env")
    assert in_scope(".github/workflows/ci.yml", ".github/") and not in_scope("github/x", ".github")
    assert in_scope("docs/a.md", "./docs/") and in_scope("docs/a.md", "docs")
    assert in_scope("anything", ".") and in_scope("anything", "./")
    assert not in_scope("x", "../x") and not in_scope("etc/passwd", "/etc")


def test_a_dot_env_scope_reads_dot_env_and_nothing_else(project: Path) -> None:
    (project / ".env").write_text("A=1\n")
    (project / "env").write_text("not me\n")
    host = host_for(project, ["file:read:.env"])
    assert call(host, "read_file", ".env") == "A=1\n"
    with pytest.raises(PermissionDenied, match="outside its file:read scope"):
        call(host, "read_file", "env")


# ---- environment -----------------------------------------------------------------------


def test_child_environment_has_the_basics_and_declared_names_never_secrets(project: Path) -> None:
    env = {**SECRETS, "MY_TOOL_HOME": "/opt/tool", "UNDECLARED": "x", "LANG": "C.UTF-8"}
    declared = ("env:read:MY_TOOL_HOME", "env:read:OPENAI_API_KEY", "env:read:AWS_*")
    host = host_for(project, list(declared), env)
    child = limited_env(host.s, declared)
    assert child["MY_TOOL_HOME"] == "/opt/tool" and child["LANG"] == "C.UTF-8" and "PATH" in child
    assert "UNDECLARED" not in child and not set(SECRETS) & set(child)
    assert call(host, "env", "MY_TOOL_HOME") == "/opt/tool"
    for name in ("OPENAI_API_KEY", "UNDECLARED"):
        with pytest.raises(PermissionDenied, match="env:"):
            call(host, "env", name)
    plain = host_for(project, ["env:read"], env)  # the old meaning (everything) is gone
    assert not set(SECRETS) & set(limited_env(plain.s, ("env:read",))) and "UNDECLARED" not in limited_env(plain.s, ("env:read",))


def test_a_process_skill_never_sees_the_provider_keys(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "env-dump"
    folder.mkdir(parents=True)
    (folder / "SKILL.yaml").write_text(
        "name: env-dump\nversion: 1.0.0\ndescription: dumps its environment\ntypes: [tool]\n"
        "permissions: [file:write, env:read:MY_TOOL_HOME, env:read:OPENAI_API_KEY]\n"
        "implementation: {backend: process, command: [python3, skill.py]}\n")
    (folder / "skill.py").write_text(
        "import json, os, sys\n"
        "open(os.path.join(os.environ['AIAGENT_PROJECT_ROOT'], 'env.json'), 'w').write(json.dumps(dict(os.environ)))\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if 'id' in msg and msg.get('method') == 'initialize':\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': {}}), flush=True)\n")
    rt = make_runtime([folder.parent], project)
    rt.services.env = {**rt.services.env, **SECRETS, "MY_TOOL_HOME": "/opt/tool"}

    async def go() -> None:
        try:
            await rt.activate("env-dump")
        finally:
            await rt.close()

    asyncio.run(go())
    seen = json.loads((project / "env.json").read_text())
    assert seen["MY_TOOL_HOME"] == "/opt/tool" and seen["AIAGENT_SKILL"] == "env-dump"
    assert not set(SECRETS) & set(seen) and "SECRET" not in seen  # skill_helpers puts SECRET=s3 in


# ---- commands --------------------------------------------------------------------------


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "first")
    (project / "main.py").write_text("print('changed')\n")
    return project


def test_git_read_cannot_write_with_output(repo: Path, tmp_path: Path) -> None:
    host = host_for(repo, ["git:read"])
    target = tmp_path / "pwned.txt"
    for base in (f"--output={target}", "--output", "-o"):
        with pytest.raises(PermissionDenied, match="option, not a revision"):
            call(host, "git_diff", base, str(target))
    with pytest.raises(PermissionDenied, match="read-only"):
        asyncio.run(host._git("diff", f"--output={target}"))
    with pytest.raises(PermissionDenied, match="read-only"):
        asyncio.run(host._git("push", "origin"))
    assert not target.exists()
    assert "changed" in str(call(host, "git_diff", "HEAD"))  # the legitimate read still works
    assert call(host, "git_log", 5)[0]["subject"] == "first"  # type: ignore[index]


def test_a_scoped_exec_grant_allows_only_what_it_covers(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    host = host_for(repo, ["shell:exec:git diff"])
    with pytest.raises(PermissionDenied, match="allows only: git diff"):
        call(host, "exec", "git", "diff", f"--output={target}")
    for argv in (["rm", "-f", "main.py"], ["git", "push"], ["env", "X=1", "git", "commit", "-m", "x"]):
        with pytest.raises(PermissionDenied, match="allows only|cannot be analysed"):
            call(host, "exec", *argv)
    assert not target.exists() and (repo / "main.py").exists()
    out = call(host, "exec", "git", "diff", "--stat")
    assert out["exit_code"] == 0 and "main.py" in out["stdout"]  # type: ignore[index]
    builder = host_for(repo, ["shell:exec:python3"])  # a prefix that is not read-only: as granted
    ran = call(builder, "exec", "python3", "-c", f"open({str(target)!r}, 'w').write('ok')")
    assert ran["exit_code"] == 0 and target.read_text() == "ok"  # type: ignore[index]


def test_plain_exec_runs_any_command_with_a_scrubbed_environment(repo: Path) -> None:
    host = host_for(repo, ["shell:exec"], SECRETS)
    out = call(host, "exec", sys.executable, "-c", "import os, json; print(json.dumps(dict(os.environ)))")
    seen = json.loads(out["stdout"])  # type: ignore[index]
    assert "PATH" in seen and not set(SECRETS) & set(seen)
