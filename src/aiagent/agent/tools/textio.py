"""Text files as the editing tools see them: encoding, line endings, atomic writes,
change diffs and the "did it change since the model read it?" check.

A file is decoded once into :class:`TextFile` (text with ``\\n`` line endings plus what is
needed to write it back the same way: encoding, BOM, CRLF, mode). Writes go to a temporary
file in the same directory which then replaces the target, so a reader never sees a half
written file and the original mode is kept. The editing tools read and write through a
folder handle (:func:`read_at`, :func:`write_at`, :func:`unlink_at` with a
:class:`~aiagent.agent.tools.workspace.Parent`), never following a symlink at the last step.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import difflib
import errno
import hashlib
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.contracts.tools import ToolError

if TYPE_CHECKING:
    from aiagent.agent.tools.workspace import Parent
    from aiagent.contracts.tools import ToolContext

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
    digest: str | None = None  # sha256 of the bytes read
    from_editor: bool = False  # the text is an editor's buffer (:func:`with_buffer`)

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


@contextmanager
def os_errors(path: Path, verb: str = "write") -> Iterator[None]:
    """Turn an OSError into one line naming the file (a missing folder reads "not found")."""
    try:
        yield
    except FileNotFoundError:
        raise ToolError(f"file not found: {path}") from None
    except OSError as err:
        raise ToolError(f"cannot {verb} {path}: {err.strerror or err}") from None


def read_at(parent: Parent) -> TextFile | None:
    """The file ``parent.name`` in the open folder, or None when there is none.

    The last step never follows a symlink: one there (put after the path was checked)
    is refused, as are folders and anything but a regular file.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(parent.name, flags, dir_fd=parent.fd)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ToolError(f"refused: {parent.path} is a symlink; nothing was written") from None
        raise ToolError(f"cannot read {parent.path}: {err.strerror or err}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(f"{parent.path} is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"{parent.path} is not a regular file")
        data = handle.read()
    text_file = decode(parent.path, data)
    text_file.mode = stat.S_IMODE(info.st_mode)
    text_file.digest = hashlib.sha256(data).hexdigest()
    return text_file


def write_at(parent: Parent, data: bytes, mode: int | None = None) -> None:
    """Replace ``parent.name`` atomically: a temporary file made in the open folder, written,
    synced, then renamed over it (which replaces a symlink there rather than following it).
    The temporary file is removed on every failure."""
    tmp = f".{parent.name[:200]}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o666, dir_fd=parent.fd)  # the umask gives new files their mode
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(tmp, parent.name, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=parent.fd)
        raise


def unlink_at(parent: Parent) -> None:
    """Delete ``parent.name`` (a symlink there is removed, never followed)."""
    os.unlink(parent.name, dir_fd=parent.fd)


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
        data = path.read_bytes()
    except OSError:
        return None
    return {"mtime_ns": st.st_mtime_ns, "size": st.st_size,
            "sha256": hashlib.sha256(data).hexdigest(), "text_sha256": _text_mark(data)}


def _text_mark(data: bytes) -> str:
    """The :func:`text_digest` an editor's buffer of these bytes would have (plain UTF-8)."""
    try:
        return text_digest(data.decode("utf-8"))
    except UnicodeDecodeError:
        return ""


def remember_read(ctx: ToolContext, path: Path) -> None:
    """Record that the model has seen ``path`` as it is now."""
    mark = fingerprint(path)
    if mark is not None:
        ctx.state.setdefault(READS_KEY, {})[str(path)] = mark


def text_digest(text: str) -> str:
    """sha256 of an editor's text (line endings made "\n", so an editor that shows a CRLF
    file with "\n" gives the same mark as the text we handed it)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8", "surrogatepass")).hexdigest()


def remember_text(ctx: ToolContext, path: Path, text: str) -> None:
    """Record that the model has seen ``path`` as an editor holds it (an unsaved buffer)."""
    mark = {"mtime_ns": 0, "size": len(text), "sha256": text_digest(text)}
    ctx.state.setdefault(READS_KEY, {})[str(path)] = mark


def with_buffer(current: TextFile | None, buffer: str | None) -> TextFile | None:
    """``current`` as the editor holds it: the buffer's text in the disk file's shape
    (line endings, mode), its digest the buffer's. Only a plain UTF-8 file (no BOM) is
    taken from the editor; other files, and a file the editor has no text for, stay as read."""
    if current is None or buffer is None or current.encoding != "utf-8" or current.bom:
        return current
    text = buffer.replace("\r\n", "\n") if current.crlf else buffer
    return dataclasses.replace(current, text=text, digest=text_digest(buffer), from_editor=True)


def remember_written(ctx: ToolContext, path: Path, data: bytes) -> None:
    """Record that the model knows ``path`` holds ``data`` (it just wrote it)."""
    mark = {"mtime_ns": 0, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "text_sha256": _text_mark(data)}
    ctx.state.setdefault(READS_KEY, {})[str(path)] = mark


def check_not_stale(ctx: ToolContext, path: Path, shown: str, current: TextFile | None = None) -> None:
    """Refuse to change ``path`` if it changed on disk after the model last read it.

    ``current`` is the file as just read through a folder handle (or as an editor holds it:
    :func:`with_buffer`); without it the path is read again. A mark from the disk matches
    an editor's text of the same content (``text_sha256``) and the reverse."""
    seen = ctx.state.get(READS_KEY, {}).get(str(path))
    if seen is None:
        return
    now = {"sha256": current.digest} if current is not None and current.digest else fingerprint(path)
    if now is None:
        raise ToolError(
            f"{shown} was deleted or became unreadable since you last read it; "
            "read the current state before changing it"
        )
    marks = {seen["sha256"], seen.get("text_sha256") or None} - {None}
    nows = {now["sha256"]}
    if current is not None and current.encoding == "utf-8" and not current.bom:
        nows.add(text_digest(current.text))
    where = "in the editor" if current is not None and current.from_editor else "on disk"
    if not marks & nows:
        raise ToolError(
            f"{shown} changed {where} since you last read it (someone else edited it); "
            "read it again with read_file before changing it"
        )
