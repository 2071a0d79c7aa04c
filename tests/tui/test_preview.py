"""Diffs shown before an edit is approved."""

from __future__ import annotations

from pathlib import Path

from aiagent.frontends.tui.preview import preview_diff


def test_write_file_preview(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    diff = preview_diff("write_file", {"file_path": "a.txt", "content": "one\n2\n"}, tmp_path)
    assert "--- a/a.txt" in diff and "-two" in diff and "+2" in diff


def test_new_file_and_edit_preview(tmp_path: Path) -> None:
    diff = preview_diff("write_file", {"file_path": "new.txt", "content": "x\n"}, tmp_path)
    assert diff.startswith("--- /dev/null\n+++ b/new.txt\n") and "+x" in diff
    (tmp_path / "empty.txt").write_text("")  # an existing empty file is not a new one
    diff = preview_diff("write_file", {"file_path": "empty.txt", "content": "y\n"}, tmp_path)
    assert diff.startswith("--- a/empty.txt\n+++ b/empty.txt\n")
    (tmp_path / "b.py").write_text("a = 1\nb = 2\n")
    edit = {"file_path": str(tmp_path / "b.py"), "old_string": "b = 2", "new_string": "b = 3"}
    diff = preview_diff("edit", edit, tmp_path)
    assert "-b = 2" in diff and "+b = 3" in diff and "+++ b/b.py" in diff


def test_nothing_to_preview(tmp_path: Path) -> None:
    assert preview_diff("edit", {"file_path": "missing.py", "old_string": "x",
                                 "new_string": "y"}, tmp_path) == ""
    assert preview_diff("shell", {"command": ["ls"]}, tmp_path) == ""
    patch = "*** Begin Patch\n*** Add File: x\n+y\n*** End Patch"
    assert preview_diff("apply_patch", {"input": patch}, tmp_path) == patch
