"""Piped input larger than a prompt should hold.

Up to :data:`INLINE` bytes of stdin go into the prompt as they are. Beyond that, the whole
input is written to ``$XDG_DATA_HOME/aiagent/inputs/stdin-….txt`` (mode 0600, at most
:data:`FILE_LIMIT` bytes) and the prompt keeps its first :data:`HEAD` and last :data:`TAIL`
bytes (cut at line ends) between which a line tells the model how much was left out, the
file's path and size, and how to read it; the user is told on stderr. Nothing is dropped
without a word. Saved inputs older than :data:`KEEP_DAYS` days are removed when a new one
is saved.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

INLINE = 256 * 1024  # bytes of piped input put in the prompt as they are
HEAD = 192 * 1024  # of a larger input: its first bytes in the prompt ...
TAIL = 64 * 1024  # ... and its last
FILE_LIMIT = 1 << 30  # the most kept in the file; the rest is not read (and the model is told)
CHUNK = 1 << 20
KEEP_DAYS = 7


@dataclass(slots=True)
class Piped:
    """Piped input: the text for the prompt, and where the whole input was kept."""

    text: str
    size: int = 0  # bytes read
    saved: Path | None = None
    truncated: bool = False  # stopped reading at FILE_LIMIT

    def notice(self) -> str:
        """The line for the user (stderr); "" when the input is all in the prompt."""
        if self.saved is None:
            return ""
        head = (f"stdin is {self.size} bytes: the first {HEAD // 1024} KiB and the last "
                f"{TAIL // 1024} KiB are in the prompt; all of it is in {self.saved}")
        if self.truncated:
            head += f" (cut at {FILE_LIMIT} bytes: the rest of stdin was not read)"
        return head


def read_piped(stream: BinaryIO, folder: Path) -> Piped:
    """Read ``stream`` to its end (or :data:`FILE_LIMIT`); keep a large input in ``folder``."""
    first = stream.read(INLINE + 1)
    if len(first) <= INLINE:
        return Piped(first.decode("utf-8", errors="replace"), len(first))
    folder.mkdir(parents=True, exist_ok=True)
    _prune(folder)
    path = folder / f"stdin-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        size, tail, truncated = _copy(stream, first, out.write)
    head = _lines(first[:HEAD], at_end=True)
    tail = _lines(tail[-TAIL:], at_end=False)
    left_out = size - len(head) - len(tail)
    where = (f"[… {left_out} bytes of the input are left out here. The whole input ({size} "
             f"bytes) is kept in the file {path} — read parts of it with read_file (offset and "
             "limit are line numbers) or search it with grep_files or search (path: that file).")
    if truncated:
        where += f" Only its first {FILE_LIMIT} bytes were read: the rest of stdin was not read."
    text = "\n".join([head.decode("utf-8", "replace").rstrip("\n"), where + " …]",
                      tail.decode("utf-8", "replace")])
    return Piped(text, size, path, truncated)


def _copy(stream: BinaryIO, first: bytes, write: Callable[[bytes], object]) -> tuple[int, bytes, bool]:
    """Write ``first`` and the rest of ``stream`` (up to FILE_LIMIT); (size, last bytes,
    whether stdin had more)."""
    write(first)
    size, tail = len(first), first[-TAIL:]
    while size < FILE_LIMIT:
        chunk = stream.read(min(CHUNK, FILE_LIMIT - size))
        if not chunk:
            return size, tail, False
        write(chunk)
        size += len(chunk)
        tail = (tail + chunk)[-TAIL:]
    return size, tail, bool(stream.read(1))


def _lines(data: bytes, at_end: bool) -> bytes:
    """``data`` cut to whole lines (at its end or at its start), when it has a line end."""
    if at_end:
        cut = data.rfind(b"\n")
        return data[: cut + 1] if cut > 0 else data
    cut = data.find(b"\n")
    return data[cut + 1 :] if 0 <= cut < len(data) - 1 else data


def _prune(folder: Path) -> None:
    old = time.time() - KEEP_DAYS * 86400
    for path in folder.glob("stdin-*.txt"):
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < old:
                path.unlink()
