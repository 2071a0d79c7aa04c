"""Writes into .git, the agent's own folders and instruction files, and aiagent's config and
data folders always ask, in every mode and through every grant; headless runs refuse. Beside
each refusal, the legitimate write that still runs."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest

from aiagent.agent.permissions import protected
from aiagent.agent.permissions.policy import PermissionPolicy, parse_rule
from aiagent.agent.tools.base import ToolRegistry
from aiagent.contracts.tools import Tool
from aiagent.infra.store import db
from aiagent.infra.store.approvals import ApprovalStore

HOSTILE = [
    ".git/config", ".git/hooks/pre-commit", ".git", ".git/", "./.git//config",
    "sub/../.git/config", "src/../.git/info/attributes", ".GIT/config", ".Git/HOOKS/x",
    ".git./config", ".g\u200cit/config", "vendor/lib/.git/config", ".agent/config.toml",
    ".agent/skills/evil/skill.py", ".agents/skills/x/SKILL.md", ".claude/settings.json",
    "AGENT.md", "AGENTS.md", "docs/AGENTS.md", "agents.MD",
]
LEGIT = ["src/x.py", ".github/workflows/ci.yml", ".gitignore", ".gitattributes", "git/config",
         "docs/agent.md.txt", ".agentrc", "README.md"]


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(db.connect(tmp_path / "aiagent.db"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def builtin(name: str) -> Tool:
    tool = ToolRegistry().get(name)
    assert tool is not None
    return tool


WRITE = builtin("write_file")


def verdict(p: PermissionPolicy, tool: Tool, **args: Any) -> tuple[str, str]:
    d = asyncio.run(p.decide(tool, args))
    return d.verdict, d.reason


def make(ws: Path, store: ApprovalStore | None, mode: str, **kw: Any) -> PermissionPolicy:
    kw.setdefault("interactive", True)
    return PermissionPolicy(mode, store, workspace=ws, sandbox="active", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["auto-edit", "full-auto", "prompt"])
@pytest.mark.parametrize("path", HOSTILE)
def test_protected_writes_always_ask(ws: Path, store: ApprovalStore, mode: str, path: str) -> None:
    got, reason = verdict(make(ws, store, mode), WRITE, file_path=path, content="x")
    assert got == "ask" and "always asks" in reason


@pytest.mark.parametrize("mode", ["auto-edit", "full-auto"])
@pytest.mark.parametrize("path", LEGIT)
def test_ordinary_writes_still_run(ws: Path, store: ApprovalStore, mode: str, path: str) -> None:
    assert verdict(make(ws, store, mode), WRITE, file_path=path, content="x")[0] == "allow"


def test_headless_refuses_with_a_message(ws: Path, store: ApprovalStore) -> None:
    got, reason = verdict(make(ws, store, "full-auto", interactive=False), WRITE,
                          file_path=".git/config", content="x")
    assert got == "deny" and "needs approval" in reason and ".git/ is protected" in reason
    assert "--approve" not in reason  # no flag would allow it: none is suggested
    assert verdict(make(ws, store, "full-auto", interactive=False), WRITE,
                   file_path="notes.txt", content="x")[0] == "allow"
    # read-only mode still refuses outright, as for any write
    assert verdict(make(ws, store, "read-only"), WRITE, file_path=".git/config",
                   content="x")[0] == "deny"


def test_grants_do_not_cover_protected_paths(ws: Path, store: ApprovalStore) -> None:
    rules = [parse_rule("write", "allow", "--approve"), parse_rule("write:.git", "allow", "config")]
    p = make(ws, store, "prompt", rules=rules, interactive=False)
    assert verdict(p, WRITE, file_path=".git/config", content="x")[0] == "deny"
    assert verdict(p, WRITE, file_path="src/a.py", content="x")[0] == "allow"
    store.add("write", "", "allow", "always")
    q = make(ws, store, "prompt")
    assert verdict(q, WRITE, file_path=".git/HEAD", content="x")[0] == "ask"
    # answering "always" on a protected path saves nothing: it asks again next time
    before = len(store.list())
    q.record(WRITE, {"file_path": ".git/config", "content": "x"}, "always")
    assert len(store.list()) == before


def test_every_path_of_a_patch_is_checked(ws: Path, store: ApprovalStore) -> None:
    patch = builtin("apply_patch")
    bad = "*** Begin Patch\n*** Add File: src/ok.py\n+x\n*** Update File: .git/config\n@@\n-a\n+b\n*** End Patch"
    assert verdict(make(ws, store, "full-auto"), patch, input=bad)[0] == "ask"
    moved = "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: .agent/hooks.py\n@@\n-a\n+b\n*** End Patch"
    assert verdict(make(ws, store, "auto-edit"), patch, input=moved)[0] == "ask"
    good = "*** Begin Patch\n*** Add File: src/ok.py\n+x\n*** End Patch"
    assert verdict(make(ws, store, "auto-edit"), patch, input=good)[0] == "allow"


def test_symlinks_into_git_are_resolved(ws: Path, store: ApprovalStore) -> None:
    (ws / "innocent").symlink_to(ws / ".git")
    (ws / "notes.txt").symlink_to(ws / ".git" / "config")
    (ws / "real.txt").write_text("x")
    (ws / "alias.txt").symlink_to(ws / "real.txt")
    p = make(ws, store, "full-auto")
    assert verdict(p, WRITE, file_path="innocent/config", content="x")[0] == "ask"
    assert verdict(p, WRITE, file_path="notes.txt", content="x")[0] == "ask"
    assert verdict(p, WRITE, file_path="alias.txt", content="x")[0] == "allow"


def test_a_git_dir_by_any_name_is_protected(ws: Path, store: ApprovalStore) -> None:
    """The target of a ``.git`` file (``gitdir: ...``), or a bare repository in the tree."""
    store_dir = ws / "store"
    subprocess.run(["git", "init", "-q", "--bare", str(store_dir)], check=True)
    (ws / "sub").mkdir()
    (ws / "sub" / ".git").write_text("gitdir: ../store\n")
    p = make(ws, store, "full-auto")
    assert verdict(p, WRITE, file_path="store/config", content="x")[0] == "ask"
    assert verdict(p, WRITE, file_path="sub/.git", content="gitdir: /x")[0] == "ask"
    assert verdict(p, WRITE, file_path="sub/main.c", content="x")[0] == "allow"


def test_aiagent_config_and_data_folders(ws: Path, store: ApprovalStore, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    p = make(ws, store, "full-auto")
    for target in (tmp_path / "cfg" / "aiagent" / "config.toml",
                   tmp_path / "data" / "aiagent" / "skills" / "x.py",
                   tmp_path / "data" / "AIAgent" / "aiagent.db"):  # compared case-folded
        assert verdict(p, WRITE, file_path=str(target), content="x")[0] == "ask", target
    assert verdict(p, WRITE, file_path=str(tmp_path / "cfg" / "other.toml"), content="x")[0] == "allow"


def test_case_folding_refuses_on_doubt(ws: Path) -> None:
    """On a case-insensitive file system .GIT is .git; here it is compared folded anyway."""
    assert protected.reason(".GiT/config", ws) is not None
    assert protected.reason("GIT~1/config", ws) is not None  # a Windows short name
    assert protected.reason(".git::$INDEX_ALLOCATION/config", ws) is not None
    assert protected.reason(".gitkeep", ws) is None
    assert protected.reason("src/.github", ws) is None


def test_git_tools_write_git_under_the_mode_rules(ws: Path, store: ApprovalStore) -> None:
    commit = builtin("git_commit")
    assert verdict(make(ws, store, "full-auto"), commit, message="m", all=True)[0] == "allow"
    assert verdict(make(ws, store, "auto-edit"), commit, message="m")[0] == "ask"
    assert verdict(make(ws, store, "read-only"), commit, message="m")[0] == "deny"
    # reading .git is not writing it
    assert verdict(make(ws, store, "read-only"), builtin("read_file"),
                   file_path=".git/config")[0] == "allow"
