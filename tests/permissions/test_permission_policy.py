from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.permissions.policy import PermissionPolicy, parse_rule
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.tools import Tool
from aiagent.infra.store import db
from aiagent.infra.store.approvals import ApprovalStore


@dataclass
class FakeTool:
    """A tool that declares no effect (as a skill's or an MCP server's might)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] | None = None


def builtin(name: str) -> Tool:
    tool = ToolRegistry().get(name)
    assert tool is not None
    return tool


SHELL, WRITE, READ, OTHER = builtin("shell_command"), builtin("write_file"), builtin("read_file"), FakeTool("web_fetch")


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(db.connect(tmp_path / "aiagent.db"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "src").mkdir(parents=True)
    return tmp_path / "ws"


def decide(policy: PermissionPolicy, tool: Tool | FakeTool, **args: Any) -> tuple[str, str]:
    d = asyncio.run(policy.decide(tool, args))  # type: ignore[arg-type]
    return d.verdict, d.reason


def sh(cmd: str) -> dict[str, Any]:
    return {"command": cmd}


def test_modes(store: ApprovalStore, ws: Path) -> None:
    def policy(mode: str, sandbox: str = "active") -> PermissionPolicy:
        return PermissionPolicy(mode, store, workspace=ws, interactive=True, sandbox=sandbox)  # type: ignore[arg-type]

    ro = policy("read-only")
    assert decide(ro, READ, file_path="x")[0] == "allow"
    assert decide(ro, SHELL, **sh("git status"))[0] == "allow"
    assert decide(ro, SHELL, **sh("npm test"))[0] == "deny"
    assert decide(ro, WRITE, file_path="src/a.py")[0] == "deny"
    pr = policy("prompt")
    assert decide(pr, SHELL, **sh("ls"))[0] == "ask"
    assert decide(pr, WRITE, file_path="src/a.py")[0] == "ask"
    ae = policy("auto-edit")
    assert decide(ae, WRITE, file_path="src/a.py")[0] == "allow"
    assert decide(ae, WRITE, file_path="/etc/passwd")[0] == "ask"
    assert decide(ae, SHELL, **sh("ls"))[0] == "ask"
    fa = policy("full-auto")
    assert decide(fa, SHELL, **sh("rm -rf build"))[0] == "allow"
    assert decide(fa, OTHER)[0] == "allow"
    verdict, reason = decide(policy("full-auto", "unavailable"), SHELL, **sh("ls"))
    assert verdict == "ask" and "no sandbox" in reason
    assert decide(policy("full-auto", "off"), SHELL, **sh("ls"))[0] == "allow"


def test_always_grant_persists_and_is_prefix_scoped(store: ApprovalStore, ws: Path, tmp_path: Path) -> None:
    one = PermissionPolicy("prompt", store, workspace=ws, interactive=True, session_id="s1")
    assert decide(one, SHELL, **sh("npm test"))[0] == "ask"
    one.record(SHELL, sh("npm test"), "always")  # type: ignore[arg-type]
    # another process: a fresh connection and policy
    other = ApprovalStore(db.connect(tmp_path / "aiagent.db"))
    two = PermissionPolicy("prompt", other, workspace=ws, interactive=False, session_id="s2")
    assert decide(two, SHELL, **sh("CI=1 npm test -- --watch=false"))[0] == "allow"
    assert decide(two, SHELL, **sh("npm publish"))[0] == "deny"  # headless: refused
    assert decide(two, SHELL, **sh("npm test && npm publish"))[0] == "deny"
    assert decide(two, SHELL, **sh("npm test > /etc/x"))[0] == "deny"
    grant = other.list()[0]
    assert (grant.tool, grant.pattern, grant.scope) == ("shell", "npm test", "always")
    other.revoke(grant.id)
    assert decide(two, SHELL, **sh("npm test"))[0] == "deny"  # at once
    actions = [e.action for e in other.audit_log()]
    assert actions[:2] == ["grant", "use"] and "revoke" in actions and "refuse" in actions


def test_scopes(store: ApprovalStore, ws: Path, tmp_path: Path) -> None:
    a = PermissionPolicy("prompt", store, workspace=ws, session_id="s1", interactive=True)
    a.record(SHELL, sh("make build"), "session")  # type: ignore[arg-type]
    a.record(SHELL, sh("cargo check"), "project")  # type: ignore[arg-type]
    assert decide(a, SHELL, **sh("make build"))[0] == "allow"
    other_session = PermissionPolicy("prompt", store, workspace=ws, session_id="s2", interactive=True)
    assert decide(other_session, SHELL, **sh("make build"))[0] == "ask"
    assert decide(other_session, SHELL, **sh("cargo check"))[0] == "allow"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    other_project = PermissionPolicy("prompt", store, workspace=elsewhere, session_id="s1", interactive=True)
    assert decide(other_project, SHELL, **sh("cargo check"))[0] == "ask"
    assert store.clear(project=str(ws.resolve())) == 1  # only the project grant
    assert decide(other_session, SHELL, **sh("cargo check"))[0] == "ask"


def test_deny_wins(store: ApprovalStore, ws: Path) -> None:
    rules = [parse_rule("shell", "allow", "--approve"), parse_rule("shell:git push", "deny", "config")]
    p = PermissionPolicy("full-auto", store, workspace=ws, rules=rules, sandbox="active")
    assert decide(p, SHELL, **sh("git status"))[0] == "allow"
    verdict, reason = decide(p, SHELL, **sh("cd x && git push --force"))
    assert verdict == "deny" and "git push" in reason
    assert decide(p, SHELL, **sh("echo $(git push)"))[0] == "deny"
    # an answered deny is saved for the session and beats a later project-wide allow
    q = PermissionPolicy("prompt", store, workspace=ws, session_id="s", interactive=True)
    q.record(SHELL, sh("rm -rf dist"), "deny")  # type: ignore[arg-type]
    store.add("shell", "rm", "allow", "always")
    assert decide(q, SHELL, **sh("rm -rf dist"))[0] == "deny"


def test_file_grants_match_path_scopes(store: ApprovalStore, ws: Path) -> None:
    p = PermissionPolicy("prompt", store, workspace=ws, rules=[parse_rule("write:src/", "allow", "--approve")])
    assert decide(p, WRITE, file_path="src/a/b.py")[0] == "allow"
    assert decide(p, builtin("edit"), file_path=str(ws / "src" / "x.py"))[0] == "allow"
    assert decide(p, WRITE, file_path="srcfoo/x.py")[0] == "deny"
    assert decide(p, WRITE, file_path="src/../setup.py")[0] == "deny"
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: docs/x.md\n+hi\n*** End Patch"
    assert decide(p, builtin("apply_patch"), input=patch)[0] == "deny"  # docs/ not covered
    q = PermissionPolicy("prompt", store, workspace=ws, interactive=True)
    q.record(WRITE, {"file_path": "src/app.py"}, "project")  # type: ignore[arg-type]
    assert decide(q, WRITE, file_path="./src/app.py")[0] == "allow"
    assert decide(q, WRITE, file_path="src/other.py")[0] == "ask"


def test_headless_message_tells_how_to_allow(store: ApprovalStore, ws: Path) -> None:
    p = PermissionPolicy("prompt", store, workspace=ws)
    verdict, reason = decide(p, SHELL, **sh("npm test -- --ci"))
    assert verdict == "deny"
    assert "--approve 'shell:npm test'" in reason and "not run" in reason


def test_shell_argv_form_and_unknown_mode(store: ApprovalStore, ws: Path) -> None:
    p = PermissionPolicy("prompt", store, workspace=ws, rules=[parse_rule("shell:npm test", "allow", "x")])
    assert decide(p, builtin("shell"), command=["bash", "-lc", "npm test"])[0] == "allow"
    assert decide(p, builtin("shell"), command=["npm", "test", "--ci"])[0] == "allow"
    assert decide(p, builtin("exec_command"), cmd="npm test")[0] == "allow"
    with pytest.raises(ValueError, match="unknown approval mode"):
        PermissionPolicy("yolo", store, workspace=ws)  # type: ignore[arg-type]
