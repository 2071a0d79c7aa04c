"""Reading files through the editor (``fs/read_text_file``), so tools see unsaved buffers.

The tool has already resolved the path and checked it (workspace scope, protected paths);
this only changes where the text comes from. A file the disk shows as binary is left to
the tool (it refuses binary files), and when the client fails, is slow or has gone, the
tool reads the disk as it would without an editor.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("aiagent.acp")
READ_TIMEOUT = 30.0


def _looks_binary(path: Path) -> bool:
    from aiagent.tools import textio

    try:
        with path.open("rb") as handle:
            return textio.looks_binary(handle.read(textio.BINARY_SNIFF_BYTES))
    except OSError:
        return False


class ClientFiles:
    """A :class:`aiagent.contracts.tools.FileAccess` over the ACP client's fs methods."""

    def __init__(self, conn: Any, session_id: str, *, timeout: float = READ_TIMEOUT) -> None:
        self.conn, self.session_id, self.timeout = conn, session_id, timeout
        self.reads = 0

    async def read_text(self, path: Path) -> str | None:
        if await asyncio.to_thread(_looks_binary, path):
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
