"""Bounded capture of a command's output.

Everything the child prints is appended to a log file (up to ``log_max`` bytes) and the
first ``head`` and last ``tail`` bytes are kept in memory, so memory stays bounded however
much the child prints. Positions are absolute byte offsets in the combined output, which
lets readers ask for "everything since position N" (``job_output``, ``write_stdin``).
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO


class Capture:
    def __init__(self, log_path: Path | None, head: int, tail: int, log_max: int) -> None:
        self.log_path = log_path
        self.head_cap, self.tail_cap, self.log_max = head, tail, log_max
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0  # bytes seen
        self.logged = 0  # bytes written to the log file
        self._log: BinaryIO | None = log_path.open("ab") if log_path else None

    def add(self, data: bytes) -> None:
        if not data:
            return
        if len(self.head) < self.head_cap:
            self.head += data[: self.head_cap - len(self.head)]
        self.tail += data
        if len(self.tail) > self.tail_cap:
            del self.tail[: len(self.tail) - self.tail_cap]
        self.total += len(data)
        self._write_log(data)

    def _write_log(self, data: bytes) -> None:
        if self._log is None or self.logged >= self.log_max:
            return
        part = data[: self.log_max - self.logged]
        self._log.write(part)
        self._log.flush()
        self.logged += len(part)

    def sync_from_log(self) -> None:
        """The child writes to the log itself: count what it wrote, keep the tail in memory."""
        if self.log_path is None or self._log is not None:
            return
        try:
            size = self.log_path.stat().st_size
        except OSError:
            return
        if size > self.total:
            start = max(self.total, size - self.tail_cap)
            self.tail += self._read_log(start, size - start)
            if len(self.tail) > self.tail_cap:
                del self.tail[: len(self.tail) - self.tail_cap]
            if len(self.head) < self.head_cap:
                self.head += self._read_log(len(self.head), self.head_cap - len(self.head))
            self.total = self.logged = size

    @classmethod
    def external(cls, log_path: Path, head: int, tail: int) -> Capture:
        """A capture for a child that writes its log file itself."""
        out = cls(None, head, tail, 0)
        out.log_path = log_path
        log_path.touch()
        return out

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    @property
    def tail_start(self) -> int:
        return self.total - len(self.tail)

    @property
    def complete(self) -> bool:
        """True when head+tail hold every byte (nothing dropped from the middle)."""
        return self.total <= len(self.head) + len(self.tail) and (
            self.total <= self.head_cap or self.tail_start <= len(self.head)
        )

    def text(self) -> str:
        """All output if it fitted in memory, else head + a gap marker + tail."""
        if self.total <= self.head_cap:
            return bytes(self.head).decode("utf-8", "replace")
        if self.tail_start <= len(self.head):
            whole = bytes(self.head) + bytes(self.tail[len(self.head) - self.tail_start :])
            return whole.decode("utf-8", "replace")
        gap = self.tail_start - len(self.head)
        head = bytes(self.head).decode("utf-8", "ignore")
        tail = bytes(self.tail).decode("utf-8", "ignore")
        return f"{head}\n[… {gap} bytes not kept in memory …]\n{tail}"

    def read_since(self, pos: int, max_bytes: int) -> tuple[bytes, int, int]:
        """Bytes after ``pos`` (at most ``max_bytes``, newest kept), new position, bytes lost."""
        if pos >= self.total:
            return b"", self.total, 0
        lost = 0
        if pos >= self.tail_start:
            data = bytes(self.tail[pos - self.tail_start :])
        else:
            log_end = min(self.logged, self.tail_start)
            data = self._read_log(pos, log_end - pos) if pos < log_end else b""
            lost = self.tail_start - max(pos, log_end)
            data += bytes(self.tail)
        if len(data) > max_bytes:
            lost += len(data) - max_bytes
            data = data[-max_bytes:]
        return data, self.total, lost

    def _read_log(self, start: int, length: int) -> bytes:
        assert self.log_path is not None
        with self.log_path.open("rb") as handle:
            handle.seek(start)
            return handle.read(max(0, length))
