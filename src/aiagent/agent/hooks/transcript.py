"""The conversation as a transcript file in Claude Code's JSON Lines shape, for hooks that
read ``transcript_path`` (a Stop hook checking what the model last said, a PostToolUse hook
looking back at the calls).

One line a message: ``{"type": "user"|"assistant", "message": {"role", "content"}, "uuid",
"parentUuid", "sessionId", "cwd", "timestamp"}``, the content in Anthropic's block shape
(text, tool_use, tool_result; an image as a note). The file lives in the data folder's
``transcripts/`` (``<session id>.jsonl``, readable by the user only) and is written only when
a hook is about to run: new messages are appended, a history that was compacted or rewound
is written again from the start. aiagent's own record stays the session database.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

from aiagent.contracts.messages import Message
from aiagent.infra.providers.anthropic import convert_messages


class Transcript:
    """``update(messages)`` → the file's path, with ``messages`` written to it."""

    def __init__(self, folder: Path, session_id: str, cwd: Path) -> None:
        name = "".join(c for c in session_id if c.isalnum()) or "run"
        self.folder, self.path = folder, folder / f"{name}.jsonl"
        self.session_id, self.cwd = session_id, str(cwd)
        self._written: list[Message] = []  # the messages the file holds, in order
        self._last_uuid: str | None = None

    def update(self, messages: list[Message]) -> str:
        """Write what is new since the last call; raises OSError when the file cannot be."""
        done = len(self._written)  # (nothing yet: the file is written from the start)
        fresh = 0 < done <= len(messages) and all(
            a is b for a, b in zip(messages[:done], self._written, strict=True))
        new = messages[done:] if fresh else messages
        if not fresh:
            self._last_uuid = None
        lines = [self._line(message) for message in new]
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if fresh else os.O_TRUNC) | os.O_NOFOLLOW
        with open(os.open(self.path, flags, 0o600), "a" if fresh else "w", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in lines if line)
        self._written = list(messages)
        return str(self.path)

    def _line(self, message: Message) -> str:
        converted = convert_messages([message])
        if not converted:
            return ""
        entry: dict[str, Any] = converted[0]
        for block in entry["content"]:
            block.pop("cache_control", None)
        this = str(uuid.uuid4())
        record = {
            "type": "assistant" if message.role == "assistant" else "user",
            "message": {"role": entry["role"], "content": entry["content"]},
            "uuid": this,
            "parentUuid": self._last_uuid,
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self._last_uuid = this
        return json.dumps(record, ensure_ascii=False)
