"""The log as a stream of blocks of whole lines, from stdin or a file (gzip or not).

Memory is bounded whatever comes in: a block is at most ``block_bytes`` plus one cut
line; a line longer than ``max_line_bytes`` is cut there and the rest of it skipped
(a log with no newline at all is read as cut lines). Input that is not a text log
(NUL bytes near the start) or a damaged gzip stream raises :class:`LogInputError`.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, cast

from aiagent.engines.logs.rules import limits

GZIP_MAGIC = b"\x1f\x8b"


class LogInputError(Exception):
    """The log cannot be read; the message is one line naming the input."""


@dataclass(slots=True)
class LogSource:
    """A readable log: ``name`` for messages (a path or ``stdin``), ``total`` bytes if known."""

    stream: IO[bytes]
    name: str
    total: int | None = None
    compressed: bool = False
    cut_lines: int = 0  # lines longer than the limit, cut

    def close(self) -> None:
        self.stream.close()


def open_log(path: Path | None, stdin: BinaryIO) -> LogSource:
    """``path`` (``None``: ``stdin``), unwrapped from gzip when its first bytes say so."""
    if path is None:
        raw: io.BufferedReader = stdin if isinstance(stdin, io.BufferedReader) \
            else io.BufferedReader(stdin)  # type: ignore[arg-type]
        name, total = "stdin", None
    else:
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed by LogSource.close
            total = path.stat().st_size
        except FileNotFoundError:
            raise LogInputError(f"--file {path}: no such file") from None
        except IsADirectoryError:
            raise LogInputError(f"--file {path}: is a folder, not a log file") from None
        except OSError as exc:
            raise LogInputError(f"--file {path}: {exc.strerror or exc}") from None
        name = str(path)
    if raw.peek(2)[:2] == GZIP_MAGIC:
        unpacked = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
        return LogSource(unpacked, name, total, compressed=True)
    return LogSource(raw, name, total)


def read_blocks(source: LogSource) -> Iterator[bytes]:
    """Blocks of whole lines (each ends with a newline) in order, bounded in size."""
    cfg = limits()["read"]
    size, max_line = int(cfg["block_bytes"]), int(cfg["max_line_bytes"])
    carry, skipping, first = b"", False, True
    while data := _read(source, size):
        if first:
            _check_text(source, data, int(cfg["binary_probe_bytes"]))
            first = False
        if skipping:  # the rest of a cut line
            cut = data.find(b"\n")
            if cut < 0:
                continue
            data, skipping = data[cut + 1:], False
        buf = carry + data
        end = buf.rfind(b"\n")
        if end >= 0:
            carry = buf[end + 1:]
            yield buf[:end + 1]
        else:
            carry = buf
        if len(carry) > max_line:  # a line with no end in sight: keep its head only
            source.cut_lines += 1
            yield carry[:max_line] + b"\n"
            carry, skipping = b"", True
    if carry:
        yield carry + b"\n"


def _read(source: LogSource, size: int) -> bytes:
    try:
        return source.stream.read(size)
    except EOFError:
        raise LogInputError(f"{source.name}: the gzip stream is truncated "
                            "(the file ends before the end of the compressed data)") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise LogInputError(f"{source.name}: not a valid gzip stream ({exc})") from None
    except OSError as exc:
        raise LogInputError(f"{source.name}: {exc.strerror or exc}") from None


def _check_text(source: LogSource, data: bytes, probe: int) -> None:
    nul = data.find(b"\0", 0, probe)
    if nul >= 0:
        raise LogInputError(f"{source.name}: not a text log (a NUL byte at offset {nul}); "
                            "give a text log, plain or gzip-compressed")
