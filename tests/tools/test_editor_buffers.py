"""Edits start from the front-end's text of a file (an editor's unsaved buffer, through
``ctx.files``): the stale check compares what the model saw with what the editor holds,
CRLF and non-UTF-8 files keep their shape, and a buffer changed after the read is refused."""

from __future__ import annotations

from pathlib import Path

from tool_harness import Harness


class Buffers:
    """A read-only FileAccess: the texts in ``held``, else the disk (as an editor would)."""

    def __init__(self, held: dict[Path, str]) -> None:
        self.held = held

    async def read_text(self, path: Path) -> str | None:
        return self.held.get(path, path.read_text(encoding="utf-8", errors="replace"))


def test_an_edit_of_a_crlf_file_starts_from_the_buffer_and_keeps_crlf(ws: Harness) -> None:
    path = ws.root / "a.txt"
    path.write_bytes(b"a\r\nb\r\n")
    ws.ctx.files = Buffers({path: "a\nb\nc typed\n"})
    assert "c typed" in ws.ok("read_file", {"file_path": "a.txt"})
    ws.ok("edit", {"file_path": "a.txt", "old_string": "a", "new_string": "A"})
    assert path.read_bytes() == b"A\r\nb\r\nc typed\r\n"  # the typed line kept, CRLF kept
    ws.ctx.files.held.clear()  # the editor reloads the file from the disk
    ws.ok("edit", {"file_path": "a.txt", "old_string": "b", "new_string": "B"})  # no re-read needed
    assert path.read_bytes() == b"A\r\nB\r\nc typed\r\n"


def test_a_buffer_changed_after_the_read_is_refused(ws: Harness) -> None:
    path = ws.root / "a.py"
    path.write_text("x = 1\n")
    held = {path: "x = 1\n"}
    ws.ctx.files = Buffers(held)
    ws.ok("read_file", {"file_path": "a.py"})
    held[path] = "x = 1\ny = 2\n"  # the user types
    message = ws.err("write_file", {"file_path": "a.py", "content": "z = 0\n"})
    assert message.startswith("a.py changed in the editor since you last read it")
    assert path.read_text() == "x = 1\n"
    ws.ok("read_file", {"file_path": "a.py"})
    ws.ok("edit", {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 3"})
    assert path.read_text() == "x = 3\ny = 2\n"


def test_a_latin1_file_is_edited_from_the_disk(ws: Harness) -> None:
    path = ws.root / "l.txt"
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    ws.ctx.files = Buffers({path: "something else entirely\n"})
    ws.ok("edit", {"file_path": "l.txt", "old_string": "caf", "new_string": "CAF"})
    assert path.read_bytes() == "CAF\xe9\n".encode("latin-1")


def test_without_a_front_end_the_disk_is_the_file(ws: Harness) -> None:
    path = ws.root / "d.txt"
    path.write_text("one\n")
    ws.ok("read_file", {"file_path": "d.txt"})
    path.write_text("two\n")
    assert "changed on disk since you last read it" in ws.err(
        "edit", {"file_path": "d.txt", "old_string": "two", "new_string": "2"})
