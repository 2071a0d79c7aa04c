"""Paths resolve inside the workspace, symlinks included."""

from __future__ import annotations

import os

from tool_harness import Harness

from aiagent.agent.tools.workspace import resolve_path


def test_outside_refused_with_clear_message(ws: Harness, tmp_path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s\n")
    msg = ws.err("read_file", {"file_path": str(secret)})
    assert msg.startswith(f"access denied: {secret} is outside the workspace {ws.root.resolve()}")
    assert "allow_outside_workspace" in msg
    assert "\n" not in msg


def test_dotdot_refused(ws: Harness) -> None:
    assert ws.err("list_dir", {"dir_path": "../"}).startswith("access denied")


def test_symlink_escape_refused(ws: Harness, tmp_path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "f.txt").write_text("x\n")
    os.symlink(tmp_path / "outside", ws.root / "sneaky")
    msg = ws.err("read_file", {"file_path": "sneaky/f.txt"})
    assert "through a symlink" in msg
    assert ws.err("write_file", {"file_path": "sneaky/new.txt", "content": "x"}).startswith("access denied")
    assert not (tmp_path / "outside" / "new.txt").exists()


def test_allowed_by_context_or_settings(ws: Harness, tmp_path) -> None:
    other = tmp_path / "o.txt"
    other.write_text("ok\n")
    ws.ctx.allow_outside_workspace = True
    assert ws.ok("read_file", {"file_path": str(other)}) == "L1: ok"
    ws.ctx.allow_outside_workspace = False
    assert ws.ok("read_file", {"file_path": str(other)}, allow_outside_workspace=True) == "L1: ok"


def test_resolve_relative(ws: Harness) -> None:
    assert resolve_path(ws.ctx, "a/b.txt") == ws.root.resolve() / "a" / "b.txt"


def test_open_parent_walks_without_following_symlinks(ws: Harness, tmp_path) -> None:
    import pytest

    from aiagent.agent.tools.workspace import ChangedUnderfootError, open_parent

    with open_parent(ws.ctx, ws.root.resolve() / "a" / "b" / "f.txt", create=True) as parent:
        assert parent.name == "f.txt"
        assert os.path.samefile(f"/proc/self/fd/{parent.fd}", ws.root / "a" / "b")
    with pytest.raises(FileNotFoundError), open_parent(ws.ctx, ws.root.resolve() / "missing" / "f.txt"):
        pass
    # A path that was checked as real but where a folder is a symlink now (a swap): refused,
    # even when the symlink points inside the workspace.
    (ws.root / "inside").mkdir()
    os.symlink(ws.root / "inside", ws.root / "swapped")
    with pytest.raises(ChangedUnderfootError, match="became a symlink"), open_parent(ws.ctx, ws.root.resolve() / "swapped" / "f.txt", create=True):
        pass
    os.symlink(tmp_path, ws.root / "out")
    with pytest.raises(ChangedUnderfootError), open_parent(ws.ctx, ws.root.resolve() / "out" / "x" / "f.txt", create=True):
        pass
    assert not (tmp_path / "x").exists()


def test_resolve_path_survives_a_symlink_changing_under_it(ws: Harness) -> None:
    # realpath itself can fail mid-race (EINVAL, ELOOP); that is one clear line, no traceback.
    os.symlink("loop", ws.root / "loop")
    msg = ws.err("write_file", {"file_path": "loop/x", "content": "x"})
    assert "\n" not in msg
