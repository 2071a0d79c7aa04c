"""write_file and edit: atomic writes that keep encoding, line endings and mode."""

from __future__ import annotations

import os
import stat

from tool_harness import Harness

from aiagent.contracts.events import FileDiffEvent


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


def test_write_into_new_nested_folders_and_a_symlinked_folder_inside(ws: Harness) -> None:
    ws.ok("write_file", {"file_path": "a/b/c/d.txt", "content": "deep\n"})
    assert (ws.root / "a/b/c/d.txt").read_text() == "deep\n"
    (ws.root / "real").mkdir()
    os.symlink("real", ws.root / "alias")  # a symlinked folder that stays inside: followed
    assert ws.ok("write_file", {"file_path": "alias/x.txt", "content": "x\n"}) == "Created real/x.txt (1 lines)"
    assert (ws.root / "real/x.txt").read_text() == "x\n" and os.path.islink(ws.root / "alias")
    ws.ok("edit", {"file_path": "alias/x.txt", "old_string": "x", "new_string": "y"})
    assert (ws.root / "real/x.txt").read_text() == "y\n"


def test_new_file_mode_follows_the_umask(ws: Harness) -> None:
    old = os.umask(0o027)
    try:
        ws.ok("write_file", {"file_path": "m.txt", "content": "m\n"})
    finally:
        os.umask(old)
    assert stat.S_IMODE((ws.root / "m.txt").stat().st_mode) == 0o640


def test_edit_keeps_mode_and_crlf(ws: Harness) -> None:
    path = ws.root / "run.sh"
    path.write_bytes(b"echo a\r\necho b\r\n")
    os.chmod(path, 0o755)
    ws.ok("edit", {"file_path": "run.sh", "old_string": "echo b", "new_string": "echo c"})
    assert path.read_bytes() == b"echo a\r\necho c\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_write_outside_when_allowed_walks_from_the_root(ws: Harness, tmp_path) -> None:
    target = tmp_path / "elsewhere" / "new" / "o.txt"
    assert "outside the workspace" in ws.err("write_file", {"file_path": str(target), "content": "o\n"})
    ws.ctx.allow_outside_workspace = True
    ws.ok("write_file", {"file_path": str(target), "content": "o\n"})
    assert target.read_text() == "o\n"


def test_a_file_in_the_way_of_a_folder_is_one_clear_line(ws: Harness) -> None:
    (ws.root / "f").write_text("file\n")
    msg = ws.err("write_file", {"file_path": "f/x.txt", "content": "x"})
    assert "\n" not in msg and "f" in msg
    assert (ws.root / "f").read_text() == "file\n"
    assert "is a directory" in ws.err("write_file", {"file_path": ".", "content": "x"}) + \
        ws.err("write_file", {"file_path": "f/..", "content": "x"})


def test_a_failed_write_leaves_no_temp_file(ws: Harness) -> None:
    import resource
    import signal

    (ws.root / "big.txt").write_text("small\n")
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, hard))
    try:
        msg = ws.err("write_file", {"file_path": "big.txt", "content": "x" * 100_000})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert msg.startswith("cannot write") and "big.txt" in msg
    assert (ws.root / "big.txt").read_text() == "small\n"
    assert sorted(p.name for p in ws.root.iterdir()) == ["big.txt"]
