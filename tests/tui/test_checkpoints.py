"""Checkpoints in a shadow git repository: undo and rewind, the user's git untouched."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aiagent.agent.core.checkpoints import Checkpoints

pytestmark = pytest.mark.skipif(not Checkpoints.available(), reason="git is not installed")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    git(ws, "config", "user.email", "t@example.com")
    git(ws, "config", "user.name", "t")
    (ws / "keep.txt").write_text("keep\n")
    (ws / "a.txt").write_text("original\n")
    (ws / ".gitignore").write_text("ignored/\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "init")
    return ws


def test_undo_restores_changed_added_and_deleted_files(repo: Path, tmp_path: Path) -> None:
    cps = Checkpoints.for_workspace(repo, tmp_path / "data")
    head, status = git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")
    turn = cps.begin("change things", 0)
    (repo / "a.txt").write_text("changed\n")
    (repo / "new" / "deep").mkdir(parents=True)
    (repo / "new" / "deep" / "b.txt").write_text("new\n")
    (repo / "keep.txt").unlink()
    (repo / "ignored").mkdir()
    (repo / "ignored" / "big.bin").write_text("not recorded")
    cps.end(turn)
    assert {(c.status, c.path) for c in cps.turn_changes(turn)} == {
        ("M", "a.txt"), ("A", "new/deep/b.txt"), ("D", "keep.txt")}
    assert "+changed" in cps.diff(turn.before)
    done = cps.undo()
    assert done is not None and done[1] == ["a.txt", "keep.txt", "new/deep/b.txt"]
    assert (repo / "a.txt").read_text() == "original\n"
    assert (repo / "keep.txt").read_text() == "keep\n"
    assert not (repo / "new").exists()
    assert (repo / "ignored" / "big.bin").exists()
    assert cps.undo() is None
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == status
    assert not (repo / ".git" / "refs" / "aiagent").exists()


def test_undo_only_touches_the_last_changing_turn(repo: Path, tmp_path: Path) -> None:
    cps = Checkpoints.for_workspace(repo, tmp_path / "data")
    one = cps.begin("one", 0)
    (repo / "a.txt").write_text("first\n")
    cps.end(one)
    two = cps.begin("two", 2)
    cps.end(two)  # a turn that changed nothing
    (repo / "keep.txt").write_text("the user's own edit\n")
    assert cps.undo() is not None
    assert (repo / "a.txt").read_text() == "original\n"
    assert (repo / "keep.txt").read_text() == "the user's own edit\n"


def test_rewind_restores_every_later_turn(repo: Path, tmp_path: Path) -> None:
    cps = Checkpoints.for_workspace(repo, tmp_path / "data")
    for number, text in enumerate(["v1\n", "v2\n", "v3\n"], 1):
        turn = cps.begin(f"turn {number}", number * 2)
        (repo / "a.txt").write_text(text)
        (repo / f"t{number}.txt").write_text(text)
        cps.end(turn)
    restored = cps.rewind(2)
    assert restored == ["a.txt", "t2.txt", "t3.txt"]
    assert (repo / "a.txt").read_text() == "v1\n" and (repo / "t1.txt").exists()
    assert not (repo / "t2.txt").exists() and not (repo / "t3.txt").exists()
    assert [t.number for t in cps.turns] == [1]


def test_works_outside_a_git_repository(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "f.txt").write_text("x")
    cps = Checkpoints.for_workspace(ws, tmp_path / "data")
    turn = cps.begin("p", 0)
    (ws / "f.txt").write_text("y")
    cps.end(turn)
    cps.undo()
    assert (ws / "f.txt").read_text() == "x"
    assert not (ws / ".git").exists()
