"""Files through the editor: ``fs/read_text_file`` (tools see unsaved buffers) and
``fs/write_text_file`` (the editor's buffers show the agent's edits).

Reading: the tool has already resolved the path and checked it (workspace scope,
protected paths); this only changes where the text comes from. A file the disk shows as
binary is left to the tool (it refuses binary files), and when the client fails, is slow
or has gone, the tool reads the disk as it would without an editor.

Writing: offered only when the client says ``fs.writeTextFile``. The tool has made every
check and computed the whole new text (:mod:`aiagent.agent.tools.delegated`); a client that
fails or does not answer in time makes the tool's result an error (never a silent
fallback to the disk, which would leave the editor's buffer and the file apart).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from aiagent.agent.tools import textio

log = logging.getLogger("aiagent.acp")
READ_TIMEOUT = 30.0
WRITE_TIMEOUT = 60.0


def _looks_binary(path: Path) -> bool:

    try:
        with path.open("rb") as handle:
            return textio.looks_binary(handle.read(textio.BINARY_SNIFF_BYTES))
    except OSError:
        return False


class ClientFiles:
    """A :class:`aiagent.contracts.tools.FileAccess` (and, with ``writes``, a
    :class:`~aiagent.contracts.tools.FileWriteAccess`) over the ACP client's fs methods."""

    def __init__(self, conn: Any, session_id: str, *, timeout: float = READ_TIMEOUT,
                 reads: bool = True, writes: bool = False,
                 write_timeout: float = WRITE_TIMEOUT) -> None:
        self.conn, self.session_id, self.timeout = conn, session_id, timeout
        self.client_reads, self.client_writes = reads, writes
        self.write_timeout = write_timeout
        self.reads = 0
        self.writes = 0

    @property
    def can_write(self) -> bool:
        return self.client_writes

    async def read_text(self, path: Path) -> str | None:
        if not self.client_reads or await asyncio.to_thread(_looks_binary, path):
            return None
        try:
            response = await asyncio.wait_for(
                self.conn.read_text_file(session_id=self.session_id, path=str(path)),
                self.timeout)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the client's failure: read the disk
            log.warning("acp: fs/read_text_file %s failed (%s); reading the disk", path, exc)
            return None
        content = getattr(response, "content", None)
        if not isinstance(content, str):
            return None
        self.reads += 1
        return content

    async def write_text(self, path: Path, text: str) -> None:
        """Hand ``text`` to the editor for ``path``; raises when the client fails."""
        try:
            await asyncio.wait_for(
                self.conn.write_text_file(session_id=self.session_id, path=str(path),
                                          content=text),
                self.write_timeout)
        except TimeoutError:
            raise RuntimeError(f"no answer to fs/write_text_file in {self.write_timeout:g} s") from None
        self.writes += 1
