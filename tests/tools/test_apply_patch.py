"""apply_patch: Codex's patch format, messages and summary."""

from __future__ import annotations

import pytest
from tool_harness import Harness

from aiagent.agent.tools.patch import PatchError, parse_patch, patch_paths


def patch(body: str) -> dict[str, str]:
    return {"input": f"*** Begin Patch\n{body}\n*** End Patch"}


def test_add_update_delete_move(ws: Harness) -> None:
    (ws.root / "mod.py").write_text("def f():\n    pass\n\nx = 1\n")
    (ws.root / "gone.txt").write_text("bye\n")
    (ws.root / "old.py").write_text("a\nb\n")
    out = ws.ok("apply_patch", patch(
        "*** Add File: new/hello.txt\n+hello\n+world\n"
        "*** Update File: mod.py\n@@ def f():\n-    pass\n+    return 123\n"
        "*** Delete File: gone.txt\n"
        "*** Update File: old.py\n*** Move to: renamed.py\n@@\n a\n-b\n+c"
    ))
    assert out == (
        "Success. Updated the following files:\nA new/hello.txt\nM mod.py\nM renamed.py\nD gone.txt\n"
    )
    assert (ws.root / "new/hello.txt").read_text() == "hello\nworld\n"
    assert (ws.root / "mod.py").read_text() == "def f():\n    return 123\n\nx = 1\n"
    assert not (ws.root / "gone.txt").exists() and not (ws.root / "old.py").exists()
    assert (ws.root / "renamed.py").read_text() == "a\nc\n"
    assert len(ws.events) == 4


def test_parse_errors_are_codex_strings(ws: Harness) -> None:
    assert ws.err("apply_patch", {"input": "bad"}) == (
        "invalid patch: The first line of the patch must be '*** Begin Patch'"
    )
    assert ws.err("apply_patch", {"input": "*** Begin Patch\nbad"}) == (
        "invalid patch: The last line of the patch must be '*** End Patch'"
    )
    assert ws.err("apply_patch", patch("*** Update File: t.py")) == (
        "invalid hunk at line 2, Update file hunk for path 't.py' is empty"
    )
    assert ws.err("apply_patch", patch("*** Frobnicate: x")).startswith(
        "invalid hunk at line 2, '*** Frobnicate: x' is not a valid hunk header."
    )


def test_context_not_found_leaves_tree_untouched(ws: Harness) -> None:
    (ws.root / "a.txt").write_text("one\ntwo\n")
    msg = ws.err("apply_patch", patch("*** Add File: b.txt\n+b\n*** Update File: a.txt\n@@\n-three\n+3"))
    assert msg == "Failed to find expected lines in a.txt:\nthree"
    assert not (ws.root / "b.txt").exists()
    assert ws.err("apply_patch", patch("*** Update File: a.txt\n@@ nowhere\n-one\n+1")) == (
        "Failed to find context 'nowhere' in a.txt"
    )


def test_fuzzy_whitespace_and_crlf(ws: Harness) -> None:
    (ws.root / "w.txt").write_bytes(b"x = 1   \r\ny = 2\r\n")
    ws.ok("apply_patch", patch("*** Update File: w.txt\n@@\n-x = 1\n+x = 10"))
    assert (ws.root / "w.txt").read_bytes() == b"x = 10\r\ny = 2\r\n"


def test_end_of_file_and_pure_addition(ws: Harness) -> None:
    (ws.root / "e.txt").write_text("a\nb\na\n")
    ws.ok("apply_patch", patch("*** Update File: e.txt\n@@\n-a\n+z\n*** End of File"))
    assert (ws.root / "e.txt").read_text() == "a\nb\nz\n"
    ws.ok("apply_patch", patch("*** Update File: e.txt\n@@\n+tail"))
    assert (ws.root / "e.txt").read_text() == "a\nb\nz\ntail\n"


def test_heredoc_wrapper_accepted() -> None:
    hunks = parse_patch("<<'EOF'\n*** Begin Patch\n*** Add File: f\n+hi\n*** End Patch\nEOF\n")
    assert hunks[0].path == "f" and hunks[0].contents == "hi\n"


def test_outside_workspace_and_stale(ws: Harness) -> None:
    assert ws.err("apply_patch", patch("*** Add File: ../evil.txt\n+x")).startswith("access denied")
    (ws.root / "s.txt").write_text("a\n")
    ws.ok("read_file", {"file_path": "s.txt"})
    (ws.root / "s.txt").write_text("b\n")
    assert "changed on disk" in ws.err("apply_patch", patch("*** Update File: s.txt\n@@\n-b\n+c"))


def test_empty_patch() -> None:
    assert parse_patch("*** Begin Patch\n*** End Patch") == []
    try:
        parse_patch("")
    except PatchError as err:
        assert "first line" in str(err)


def test_a_header_with_leading_whitespace_is_refused_and_nothing_is_written(ws: Harness, tmp_path) -> None:
    (ws.root / "a.txt").write_text("one\n")
    body = ("*** Add File: fine.txt\n+ok\n"
            " *** Add File: ../outside.txt\n+x\n"
            "*** Update File: a.txt\n*** Move to: ../../x\n@@\n-one\n+two")
    msg = ws.err("apply_patch", patch(body))
    assert msg.startswith("invalid patch at line 4, ' *** Add File: ../outside.txt' looks like a header")
    assert not (ws.root / "fine.txt").exists() and not (tmp_path / "outside.txt").exists()
    assert (ws.root / "a.txt").read_text() == "one\n"


def test_a_move_outside_refuses_the_whole_patch(ws: Harness, tmp_path) -> None:
    (ws.root / "a.txt").write_text("one\n")
    body = "*** Add File: fine.txt\n+ok\n*** Update File: a.txt\n*** Move to: ../../x\n@@\n-one\n+two"
    assert ws.err("apply_patch", patch(body)).startswith("access denied: ../../x is outside the workspace")
    assert not (ws.root / "fine.txt").exists() and (ws.root / "a.txt").read_text() == "one\n"
    assert not (tmp_path.parent / "x").exists()


@pytest.mark.parametrize("line", [
    "\t*** Delete File: a.txt", "  *** Update File: a.txt", " *** Move to: b.txt", "*** Frobnicate",
    "*** add file: x", "*** Move to: b.txt", " *** End Patch",
])
def test_strict_headers(line: str) -> None:
    with pytest.raises(PatchError, match="line 2|line 3"):
        patch_paths(f"*** Begin Patch\n{line}\n*** Add File: z\n+z\n*** End Patch")


def test_a_header_like_line_inside_an_update_hunk_is_refused() -> None:
    text = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n *** Add File: ../x\n+two\n*** End Patch"
    with pytest.raises(PatchError, match="line 5"):
        patch_paths(text)


def test_patch_paths_lists_every_path_the_tool_would_touch(ws: Harness) -> None:
    text = ("*** Begin Patch\n*** Add File: n.txt\n+n\n*** Delete File: d.txt\n"
            "*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-one\n+two\n*** End Patch")
    assert patch_paths(text) == ["n.txt", "d.txt", "a.txt", "sub/b.txt"]
    (ws.root / "a.txt").write_text("one\n")
    (ws.root / "d.txt").write_text("d\n")
    ws.ok("apply_patch", {"input": text})
    assert sorted(p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*") if p.is_file()) == [
        "n.txt", "sub/b.txt"]


def test_content_lines_that_merely_contain_stars_still_apply(ws: Harness) -> None:
    (ws.root / "m.md").write_text("title\n ***\n* item\n")
    ws.ok("apply_patch", patch("*** Update File: m.md\n@@\n title\n  ***\n-* item\n+* thing"))
    assert (ws.root / "m.md").read_text() == "title\n ***\n* thing\n"
    (ws.root / "f.c").write_text("a\x0cb\n")  # a form feed stays inside its line
    ws.ok("apply_patch", patch("*** Update File: f.c\n@@\n-a\x0cb\n+c"))
    assert (ws.root / "f.c").read_text() == "c\n"
