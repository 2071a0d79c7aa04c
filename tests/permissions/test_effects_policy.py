"""The policy reads what tools declare (ToolEffect), never their names; every built-in
declares an effect; undeclared tools ask; unattended shell commands carry sandbox=True."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.permissions.policy import PermissionPolicy, parse_rule
from aiagent.agent.tools.base import BUILTIN_TOOLS, ToolRegistry
from aiagent.contracts.approval import Decision
from aiagent.contracts.tools import UNDECLARED, Tool, ToolEffect, effect_of
from aiagent.infra.store import db
from aiagent.infra.store.approvals import ApprovalStore


@dataclass
class Declared:
    """A tool with any name and the effect it declares (None: declares nothing)."""

    name: str
    effect: ToolEffect | None = None
    description: str = ""
    input_schema: dict[str, Any] | None = None


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(db.connect(tmp_path / "aiagent.db"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "src").mkdir(parents=True)
    return tmp_path / "ws"


def builtin(name: str) -> Tool:
    tool = ToolRegistry().get(name)
    assert tool is not None
    return tool


def decide(policy: PermissionPolicy, tool: object, **args: Any) -> Decision:
    return asyncio.run(policy.decide(tool, args))  # type: ignore[arg-type]


def policy(ws: Path, store: ApprovalStore, mode: str, **kw: Any) -> PermissionPolicy:
    kw.setdefault("interactive", True)
    return PermissionPolicy(mode, store, workspace=ws, sandbox=kw.pop("sandbox", "active"),  # type: ignore[arg-type]
                            **kw)


def test_every_builtin_declares_its_effect() -> None:
    expected = {
        "read": {"read_file", "list_dir", "grep_files", "search", "glob", "git_status", "git_diff",
                 "git_log", "job_list", "job_output", "ast_search", "repo_map", "lsp_definition",
                 "lsp_references", "lsp_hover", "lsp_diagnostics", "lsp_symbols", "update_plan",
                 "task"},
        "write": {"write_file", "edit", "apply_patch", "git_commit", "git_branch", "schedule_task"},
        "execute": {"shell", "shell_command", "exec_command", "write_stdin", "job_kill",
                    "schedule_task"},
        "network": {"web_fetch", "web_search"},
    }
    apple = {  # tools/apple: what each declares (simctl, codesign and xcodebuild -list only look)
        "read": {"codesign_doctor", "codesign_info", "codesign_verify", "sim_list", "sim_log",
                 "swift_add_dep", "swift_build", "swift_remove_dep", "swift_resolve", "swift_test",
                 "xcode_assets", "xcode_data_model", "xcode_project_info"},
        "write": {"sim_record", "sim_screenshot", "swift_add_dep", "swift_build", "swift_remove_dep",
                  "swift_resolve", "swift_test", "xcode_archive", "xcode_build", "xcode_clean",
                  "xcode_export", "xcode_test"},
        "execute": {"sim_boot", "sim_install", "sim_launch", "sim_record", "sim_screenshot",
                    "sim_shutdown", "swift_build", "swift_resolve", "swift_test", "xcode_archive",
                    "xcode_build", "xcode_clean", "xcode_export", "xcode_test", "xcrun"},
        "network": {"swift_resolve", "xcode_export"},
    }
    for kind, names in apple.items():
        expected[kind] |= names
    for name in BUILTIN_TOOLS:
        effect = effect_of(builtin(name))
        assert effect is not UNDECLARED, f"{name} declares no effect"
        kinds = [k for k, names in expected.items() if name in names]
        assert effect.kinds == frozenset(kinds), name
    assert builtin("write_file").effect.paths({"file_path": "a.py", "content": ""}) == ["a.py"]
    patch = "*** Begin Patch\n*** Add File: a.py\n+x\n*** Update File: b.py\n*** Move to: c.py\n"
    assert builtin("apply_patch").effect.paths({"input": patch}) == ["a.py", "b.py", "c.py"]
    assert builtin("shell").effect.command({"command": ["bash", "-lc", "ls -l"]}) == "ls -l"
    assert builtin("exec_command").effect.command({"cmd": "ls"}) == "ls"
    assert builtin("git_commit").effect.paths({"paths": ["a.py"]}) == []  # writes .git, not paths


def test_undeclared_tools_are_treated_as_execute(ws: Path, store: ApprovalStore) -> None:
    mystery = Declared("read_file")  # a builtin's name, but it declares nothing
    assert decide(policy(ws, store, "read-only"), mystery).verdict == "deny"
    assert decide(policy(ws, store, "prompt"), mystery).verdict == "ask"
    assert decide(policy(ws, store, "auto-edit"), mystery).verdict == "ask"
    assert decide(policy(ws, store, "prompt", interactive=False), mystery).verdict == "deny"
    # legitimate: a declared reader with any name runs, even in read-only mode
    reader = Declared("frobnicate", ToolEffect.of("read"))
    assert decide(policy(ws, store, "read-only"), reader).verdict == "allow"


def test_the_name_does_not_matter_the_effect_does(ws: Path, store: ApprovalStore) -> None:
    renamed = replace_name(builtin("write_file"), "save_note")
    ae = policy(ws, store, "auto-edit")
    assert decide(ae, renamed, file_path="src/x.py", content="").verdict == "allow"
    assert decide(ae, renamed, file_path=".git/config", content="").verdict == "ask"
    runner = Declared("notes", ToolEffect.of("execute", command_args=("script",)))
    ro = policy(ws, store, "read-only")
    assert decide(ro, runner, script="git status") == Decision("allow", sandbox=True)
    assert decide(ro, runner, script="rm -rf src").verdict == "deny"
    # a tool *named* shell that declares only reading is a reader: nothing is sandboxed
    assert decide(ro, Declared("shell", ToolEffect.of("read")), command="rm -rf /") == Decision("allow")


def replace_name(tool: Tool, name: str) -> Tool:
    clone = type(tool)()  # type: ignore[call-arg]
    clone.name = name
    return clone


def test_processes_the_run_started_need_no_new_approval(ws: Path, store: ApprovalStore) -> None:
    for name in ("write_stdin", "job_kill"):
        assert effect_of(builtin(name)).approved_by
        assert decide(policy(ws, store, "prompt", interactive=False), builtin(name),
                      session_id=1, chars="q").verdict == "allow"
    # approved_by is what counts: the same effect without it asks
    plain = replace(effect_of(builtin("write_stdin")), approved_by="")
    assert decide(policy(ws, store, "prompt"), Declared("write_stdin", plain)).verdict == "ask"


def test_unattended_shell_commands_must_be_sandboxed(ws: Path, store: ApprovalStore) -> None:
    shell = builtin("shell_command")
    sandboxed = Decision("allow", sandbox=True)
    assert decide(policy(ws, store, "read-only"), shell, command="ls -la") == sandboxed
    assert decide(policy(ws, store, "full-auto"), shell, command="make") == sandboxed
    granted = policy(ws, store, "prompt", rules=[parse_rule("shell:npm test", "allow", "--approve")])
    assert decide(granted, shell, command="npm test") == sandboxed
    store.add("shell", "cargo check", "allow", "always", project=str(ws.resolve()))
    assert decide(policy(ws, store, "prompt"), shell, command="cargo check") == sandboxed
    # full-auto with [sandbox] backend = "none": unsandboxed, as documented before
    assert decide(policy(ws, store, "full-auto", sandbox="off"), shell, command="ls") == Decision("allow")
    # a person decides: no sandbox requirement comes with the question
    assert decide(policy(ws, store, "prompt"), shell, command="make") == Decision("ask")
    # not a shell command: nothing to sandbox
    assert decide(policy(ws, store, "full-auto"), builtin("write_file"),
                  file_path="src/a.py", content="") == Decision("allow")
