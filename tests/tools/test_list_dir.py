"""list_dir: Codex CLI's output format, pinned exactly."""

from __future__ import annotations

import os

from tool_harness import Harness


def tree(ws: Harness) -> None:
    (ws.root / "nested" / "deeper").mkdir(parents=True)
    (ws.root / "entry.txt").write_text("content")
    (ws.root / "nested" / "child.txt").write_text("child")
    (ws.root / "nested" / "deeper" / "grandchild.txt").write_text("gc")
    os.symlink(ws.root / "entry.txt", ws.root / "link")


def test_lists_tree_with_suffixes(ws: Harness) -> None:
    tree(ws)
    os.mkfifo(ws.root / "pipe")
    out = ws.ok("list_dir", {"dir_path": str(ws.root), "depth": 3, "limit": 20})
    assert out == "\n".join([
        f"Absolute path: {ws.root}",
        "entry.txt",
        "link@",
        "nested/",
        "  child.txt",
        "  deeper/",
        "    grandchild.txt",
        "pipe?",
    ])


def test_depth_limits(ws: Harness) -> None:
    tree(ws)
    out = ws.ok("list_dir", {"dir_path": str(ws.root), "depth": 1})
    assert out.splitlines()[1:] == ["entry.txt", "link@", "nested/"]


def test_pagination_and_truncation_marker(ws: Harness) -> None:
    for name in ("a", "b"):
        (ws.root / name).mkdir()
        (ws.root / name / f"{name}_child.txt").write_text(name)
    first = ws.ok("list_dir", {"dir_path": str(ws.root), "limit": 2})
    assert first.splitlines()[1:] == ["a/", "  a_child.txt", "More than 2 entries found"]
    second = ws.ok("list_dir", {"dir_path": str(ws.root), "offset": 3, "limit": 2})
    assert second.splitlines()[1:] == ["b/", "  b_child.txt"]


def test_default_limit_is_25(ws: Harness) -> None:
    for i in range(40):
        (ws.root / f"file_{i:02}.txt").write_text("x")
    lines = ws.ok("list_dir", {"dir_path": str(ws.root)}).splitlines()
    assert len(lines) == 27 and lines[-1] == "More than 25 entries found"


def test_empty_directory(ws: Harness) -> None:
    assert ws.ok("list_dir", {"dir_path": str(ws.root)}) == f"Absolute path: {ws.root}"


def test_errors(ws: Harness) -> None:
    (ws.root / "x").mkdir()
    assert ws.err("list_dir", {"dir_path": str(ws.root), "offset": 10}) == "offset exceeds directory entry count"
    assert ws.err("list_dir", {"dir_path": str(ws.root), "depth": 0}) == "depth must be greater than zero"
    assert ws.err("list_dir", {"dir_path": str(ws.root), "offset": 0}) == "offset must be a 1-indexed entry number"
    assert ws.err("list_dir", {"dir_path": str(ws.root / "nope")}).startswith(
        "failed to read directory: No such file or directory"
    )
