"""Text files as the editing tools see them: encoding, line endings, atomic writes,
change diffs and the "did it change since the model read it?" check.

A file is decoded once into :class:`TextFile` (text with ``\\n`` line endings plus what is
needed to write it back the same way: encoding, BOM, CRLF, mode). Writes go to a temporary
file in the same directory which then replaces the target, so a reader never sees a half
written file and the original mode is kept.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.tools.base import ToolError

if TYPE_CHECKING:
    from aiagent.tools.base import ToolContext

BINARY_SNIFF_BYTES = 8192
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
READS_KEY = "files.reads"


@dataclass(slots=True)
class TextFile:
    path: Path
    text: str  # with "\n" line endings when ``crlf`` is set
    encoding: str = "utf-8"
    bom: bytes = b""
    crlf: bool = False
    mode: int | None = None

    def encode(self, text: str) -> bytes:
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        return self.bom + text.encode(self.encoding)


def looks_binary(data: bytes) -> bool:
    head = data[:BINARY_SNIFF_BYTES]
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    return b"\x00" in head


def uses_crlf(text: str) -> bool:
    """True when every newline is part of a CRLF pair (mixed files are left alone)."""
    newlines = text.count("\n")
    return newlines > 0 and text.count("\r\n") == newlines


def decode(path: Path, data: bytes) -> TextFile:
    """Decode ``data`` read from ``path``; refuse binary content with a clear message."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _text_file(path, data[len(bom) :].decode(encoding, "replace"), encoding, bom)
    if looks_binary(data):
        raise ToolError(f"{path} looks like a binary file; refusing to edit it as text")
    try:
        return _text_file(path, data.decode("utf-8"), "utf-8", b"")
    except UnicodeDecodeError:
        # Not UTF-8: keep the bytes exactly by treating them as Latin-1.
        return _text_file(path, data.decode("latin-1"), "latin-1", b"")


def _text_file(path: Path, text: str, encoding: str, bom: bytes) -> TextFile:
    crlf = uses_crlf(text)
    if crlf:
        text = text.replace("\r\n", "\n")
    return TextFile(path=path, text=text, encoding=encoding, bom=bom, crlf=crlf)


def load(path: Path) -> TextFile:
    try:
        data = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        raise ToolError(f"file not found: {path}") from None
    except IsADirectoryError:
        raise ToolError(f"{path} is a directory, not a file") from None
    except OSError as err:
        raise ToolError(f"cannot read {path}: {err.strerror or err}") from None
    text_file = decode(path, data)
    text_file.mode = mode
    return text_file


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else _default_mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def unified_diff(old: str, new: str, name: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{name}" if old else "/dev/null",
        tofile=f"b/{name}" if new else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# -- what the model has read ------------------------------------------------------------


def fingerprint(path: Path) -> dict[str, Any] | None:
    try:
        st = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "sha256": digest}


def remember_read(ctx: ToolContext, path: Path) -> None:
    """Record that the model has seen ``path`` as it is now."""
    mark = fingerprint(path)
    if mark is not None:
        ctx.state.setdefault(READS_KEY, {})[str(path)] = mark


def check_not_stale(ctx: ToolContext, path: Path, shown: str) -> None:
    """Refuse to change ``path`` if it changed on disk after the model last read it."""
    seen = ctx.state.get(READS_KEY, {}).get(str(path))
    if seen is None:
        return
    now = fingerprint(path)
    if now is None:
        raise ToolError(
            f"{shown} was deleted or became unreadable since you last read it; "
            "read the current state before changing it"
        )
    if now["sha256"] != seen["sha256"]:
        raise ToolError(
            f"{shown} changed on disk since you last read it (someone else edited it); "
            "read it again with read_file before changing it"
        )
