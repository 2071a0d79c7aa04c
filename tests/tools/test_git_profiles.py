"""git tools against real repositories made here; tool profiles."""

from __future__ import annotations

import subprocess

import pytest
from tool_harness import Harness

from aiagent.agent.tools.base import BUILTIN_TOOLS, ToolRegistry
from aiagent.agent.tools.profiles import PROFILES, expand_groups, profile_tools
from aiagent.contracts.tools import ToolEffect, ToolError


def repo(ws: Harness) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws.root)], check=True)
    for key, value in (("user.name", "Test"), ("user.email", "t@example.com"), ("commit.gpgsign", "false")):
        subprocess.run(["git", "-C", str(ws.root), "config", key, value], check=True)


def test_not_a_repository(ws: Harness) -> None:
    assert ws.err("git_status", {}) == f"not a git repository: {ws.root.resolve()}"


def test_status_commit_log_diff_branch(ws: Harness) -> None:
    repo(ws)
    (ws.root / "a.txt").write_text("one\n")
    assert "?? a.txt" in ws.ok("git_status", {})
    assert ws.ok("git_log", {}) == "No commits yet."
    out = ws.ok("git_commit", {"message": "first", "paths": ["a.txt"]})
    assert out.startswith("[main (root-commit)") and out.endswith("first")
    assert ws.ok("git_status", {}).endswith("nothing to commit, working tree clean")
    (ws.root / "a.txt").write_text("two\n")
    diff = ws.ok("git_diff", {})
    assert "-one\n+two" in diff
    assert ws.ok("git_diff", {"staged": True}) == "No changes."
    assert "nothing to commit" in ws.err("git_commit", {"message": "x"})
    ws.ok("git_commit", {"message": "second", "all": True})
    log = ws.ok("git_log", {"limit": 5}).splitlines()
    assert [line.split(": ", 1)[1] for line in log] == ["second", "first"]
    assert ws.ok("git_branch", {"name": "feature", "checkout": True}) == "Created and switched to branch feature"
    assert "* feature" in ws.ok("git_branch", {})
    assert "already exists" in ws.err("git_branch", {"name": "main"})
    assert ws.ok("git_branch", {"name": "main", "checkout": True}) == "Switched to branch main"


def test_git_missing(ws: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert ws.err("git_status", {}) == "git is not installed: no `git` executable on PATH"


def test_profiles_name_registered_tools() -> None:
    for name, tools in PROFILES.items():
        assert set(tools) <= set(BUILTIN_TOOLS), name
    assert profile_tools("codex")[:2] == ["shell", "shell_command"]
    assert profile_tools("all") == sorted(BUILTIN_TOOLS)
    with pytest.raises(ToolError, match="unknown tool profile 'nope'; choose one of: codex, default, readonly, all"):
        profile_tools("nope")
    with pytest.raises(ValueError):
        profile_tools("nope")
    assert expand_groups(["read", "search", "git_log", "read_file"]) == [
        "read_file", "list_dir", "search", "glob", "grep_files", "ast_search", "git_log",
    ]
    assert set(expand_groups(["readonly"])) == set(PROFILES["readonly"])


def test_every_builtin_loads_with_a_valid_schema() -> None:
    import jsonschema

    registry = ToolRegistry()
    for name in BUILTIN_TOOLS:
        tool = registry.get(name)
        assert tool is not None and tool.name == name and tool.description
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert isinstance(tool.effect, ToolEffect) and tool.effect.kinds
