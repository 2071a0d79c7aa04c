"""write_file and edit: atomic writes that keep encoding, line endings and mode."""

from __future__ import annotations

import os
import stat

from tool_harness import Harness

from aiagent.core.events import FileDiffEvent


def test_write_creates_with_parents_and_emits_diff(ws: Harness) -> None:
    out = ws.ok("write_file", {"file_path": "pkg/new.py", "content": "a = 1\nb = 2\n"})
    assert out == "Created pkg/new.py (2 lines)"
    assert (ws.root / "pkg/new.py").read_text() == "a = 1\nb = 2\n"
    (event,) = ws.events
    assert isinstance(event, FileDiffEvent) and event.path == "pkg/new.py" and event.id == "call-1"
    assert event.diff.splitlines()[:3] == ["--- /dev/null", "+++ b/pkg/new.py", "@@ -0,0 +1,2 @@"]


def test_write_keeps_crlf_mode_and_bom(ws: Harness) -> None:
    path = ws.root / "w.txt"
    path.write_bytes(b"\xef\xbb\xbfold\r\nline\r\n")
    os.chmod(path, 0o750)
    ws.ok("write_file", {"file_path": "w.txt", "content": "new\ntext\n"})
    assert path.read_bytes() == b"\xef\xbb\xbfnew\r\ntext\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


def test_edit_once(ws: Harness) -> None:
    (ws.root / "a.py").write_text("x = 1\ny = 2\n")
    assert ws.ok("edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "y = 3"}) == (
        "Edited a.py: replaced 1 occurrence."
    )
    assert (ws.root / "a.py").read_text() == "x = 1\ny = 3\n"
    assert ws.events[-1].diff.count("\n-y = 2") == 1


def test_edit_errors(ws: Harness) -> None:
    (ws.root / "a.py").write_text("v = 0\nv = 0\n")
    assert "occurs 2 times" in ws.err("edit", {"file_path": "a.py", "old_string": "v = 0", "new_string": "v = 1"})
    assert "not found" in ws.err("edit", {"file_path": "a.py", "old_string": "w", "new_string": "z"})
    assert "identical" in ws.err("edit", {"file_path": "a.py", "old_string": "v", "new_string": "v"})
    assert "file not found" in ws.err("edit", {"file_path": "nope.py", "old_string": "a", "new_string": "b"})
    out = ws.ok("edit", {"file_path": "a.py", "old_string": "v = 0", "new_string": "v = 1", "replace_all": True})
    assert out == "Edited a.py: replaced 2 occurrences."


def test_edit_crlf_and_latin1_kept(ws: Harness) -> None:
    crlf = ws.root / "c.txt"
    crlf.write_bytes(b"one\r\ntwo\r\n")
    ws.ok("edit", {"file_path": "c.txt", "old_string": "one\ntwo", "new_string": "uno\ndos"})
    assert crlf.read_bytes() == b"uno\r\ndos\r\n"
    latin = ws.root / "l.txt"
    latin.write_bytes("caf\xe9\n".encode("latin-1"))
    ws.ok("edit", {"file_path": "l.txt", "old_string": "caf", "new_string": "CAF"})
    assert latin.read_bytes() == b"CAF\xe9\n"


def test_binary_refused(ws: Harness) -> None:
    (ws.root / "b.bin").write_bytes(b"\x00\x01abc")
    assert "binary" in ws.err("edit", {"file_path": "b.bin", "old_string": "abc", "new_string": "x"})
    assert (ws.root / "b.bin").read_bytes() == b"\x00\x01abc"


def test_stale_read_refused(ws: Harness) -> None:
    path = ws.root / "s.txt"
    path.write_text("a\n")
    ws.ok("read_file", {"file_path": "s.txt"})
    path.write_text("user edit\n")
    msg = ws.err("edit", {"file_path": "s.txt", "old_string": "user", "new_string": "x"})
    assert msg.startswith("s.txt changed on disk since you last read it")
    assert path.read_text() == "user edit\n"
    assert "changed on disk" in ws.err("write_file", {"file_path": "s.txt", "content": "z"})
    ws.ok("read_file", {"file_path": "s.txt"})
    ws.ok("edit", {"file_path": "s.txt", "old_string": "user", "new_string": "x"})
    # our own write is remembered, so a second edit works without re-reading
    ws.ok("edit", {"file_path": "s.txt", "old_string": "x", "new_string": "y"})
    assert path.read_text() == "y edit\n"


def test_write_through_symlink_keeps_link(ws: Harness) -> None:
    (ws.root / "real.txt").write_text("a\n")
    os.symlink("real.txt", ws.root / "link.txt")
    ws.ok("write_file", {"file_path": "link.txt", "content": "b\n"})
    assert os.path.islink(ws.root / "link.txt")
    assert (ws.root / "real.txt").read_text() == "b\n"


def test_no_temp_files_left(ws: Harness) -> None:
    ws.ok("write_file", {"file_path": "t.txt", "content": "x"})
    assert sorted(p.name for p in ws.root.iterdir()) == ["t.txt"]
