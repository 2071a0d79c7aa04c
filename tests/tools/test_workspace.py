"""Paths resolve inside the workspace, symlinks included."""

from __future__ import annotations

import os

from tool_harness import Harness

from aiagent.tools.workspace import resolve_path


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
