"""``--input-format stream-json``: user messages as JSON lines on stdin, one turn each.

Each line is ``{"type": "user", "message": {"role": "user", "content": "…"}}`` (content
may also be a list of ``{"type": "text", "text": "…"}`` blocks, as Claude Code takes it).
The lines are read as they come, so a program can write the next message after it has
read the previous ``result`` line. Every message runs in the same session; the run ends at
the end of stdin, or after a message whose run did not succeed (its exit code is the
process's).

A line that is not such a message gets one ``aiagent: error: stdin line N: …`` line on
stderr and a ``{"type": "system", "subtype": "input_error"}`` line on stdout; it is
skipped, the next lines still run, and the process exits 2 at the end when nothing worse
happened. Blank lines are ignored.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from aiagent.frontends.headless import Transcript
    from aiagent.frontends.stream_json import StreamJsonRenderer

MAX_LINE = 16 * 1024 * 1024  # bytes in one stdin line
EXIT_USAGE = 2


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    text: str = ""  # the user's message
    error: str = ""  # why the line is not one


class MessageReader:
    """The user messages on a binary stream, read without blocking the event loop."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.number = 0

    async def next(self) -> Line | None:
        """The next non-blank line (None at the end of the stream)."""
        loop = asyncio.get_running_loop()
        while True:
            raw: bytes = await loop.run_in_executor(None, self.stream.readline, MAX_LINE + 1)
            if not raw:
                return None
            self.number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                await loop.run_in_executor(None, self._skip_rest)
                return Line(self.number, error=f"longer than {MAX_LINE // (1024 * 1024)} MiB")
            if raw.strip():
                return parse_line(self.number, raw)

    def _skip_rest(self) -> None:
        while True:
            chunk = self.stream.readline(1 << 20)
            if not chunk or chunk.endswith(b"\n"):
                return


def parse_line(number: int, raw: bytes) -> Line:
    """One stdin line as a user message, or why it is not one."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return Line(number, error="not UTF-8")
    except json.JSONDecodeError as exc:
        return Line(number, error=f"not valid JSON ({exc.msg} at column {exc.colno})")
    error = message_problem(data)
    if error:
        return Line(number, error=error)
    return Line(number, text=message_text(data["message"]["content"]))


EXPECTED = 'expected {"type": "user", "message": {"role": "user", "content": "…"}}'


def message_problem(data: Any) -> str:
    if not isinstance(data, dict) or data.get("type") != "user":
        got = data.get("type") if isinstance(data, dict) else type(data).__name__
        return f"{EXPECTED}, got type {got!r}"
    message = data.get("message")
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        return f"{EXPECTED}: \"message\" must be an object with role \"user\""
    content = message.get("content")
    if isinstance(content, str):
        return "" if content.strip() else "the message is empty"
    if not isinstance(content, list) or not content:
        return "\"content\" must be a string or a list of text blocks"
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text" \
                or not isinstance(block.get("text"), str):
            kind = block.get("type") if isinstance(block, dict) else type(block).__name__
            return f"only text content blocks are taken, got {kind!r}"
    return "" if message_text(content).strip() else "the message is empty"


def message_text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "\n\n".join(block["text"] for block in content)


Drive = Callable[[str], Awaitable["Transcript"]]


async def converse(first: str, reader: MessageReader, drive: Drive,
                   settle: Callable[[Transcript], int], renderer: StreamJsonRenderer,
                   err: TextIO) -> int:
    """Run ``first`` (when given), then each message on ``reader``, in one session; the
    exit code of the last run, or 2 when only input lines were bad."""
    from aiagent.frontends.interrupt import DaemonThreads
    from aiagent.frontends.terminal_text import neutralise

    asyncio.get_running_loop().set_default_executor(DaemonThreads())
    pending = [first] if first.strip() else []
    code, bad = 0, False
    while not renderer.lines.broken:
        if pending:
            text = pending.pop()
        else:
            line = await reader.next()
            if line is None:
                break
            if line.error:
                bad = True
                err.write(f"aiagent: error: stdin line {line.number}: {neutralise(line.error)}\n")
                err.flush()
                renderer.input_error(line.number, line.error)
                continue
            text = line.text
        renderer.begin()
        transcript = await drive(text)
        code = settle(transcript)
        renderer.finish(transcript)
        if code:
            break
    return code or (EXIT_USAGE if bad else 0)
