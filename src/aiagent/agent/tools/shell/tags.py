"""The ``<shell>…</shell>`` text protocol for models without native tool calls.

The model writes commands between ``<shell>`` and ``</shell>`` in its answer. The loop
streams the answer as usual (feeding chunks to :class:`ShellTagParser` if it wants to show
commands early), keeps the assistant message verbatim, and once the answer is complete
calls :func:`run_shell_tags`: every command runs through the ``shell_command`` machinery
(timeouts, tree kill, live output) and the results come back as one separate message,
each result capped at ``max_result_chars``. The loop repeats for at most ``max_rounds``.

Settings (``[tools.tags]``): ``max_rounds`` (10), ``max_result_chars`` (2000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aiagent.agent.tools.shell.tools import ShellCommandTool
from aiagent.contracts.tools import ToolContext

OPEN = "<shell>"
CLOSE = "</shell>"
_PATTERN = re.compile(r"<shell>(.*?)</shell>", re.DOTALL)
DEFAULT_MAX_ROUNDS = 10
DEFAULT_MAX_RESULT_CHARS = 2000


def extract_commands(text: str) -> list[str]:
    """Commands in a complete answer, in order; ``text`` is not modified."""
    return [c.strip() for c in _PATTERN.findall(text) if c.strip()]


class ShellTagParser:
    """Finds ``<shell>`` blocks in streamed text, whatever way the chunks split the tags."""

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False
        self._command: list[str] = []

    def feed(self, chunk: str) -> list[str]:
        """Add a chunk; return the commands whose closing tag arrived with it."""
        self._buffer += chunk
        found: list[str] = []
        while True:
            tag = CLOSE if self._inside else OPEN
            at = self._buffer.find(tag)
            if at < 0:
                self._keep_partial(tag)
                return found
            if self._inside:
                self._command.append(self._buffer[:at])
                command = "".join(self._command).strip()
                if command:
                    found.append(command)
                self._command = []
            self._buffer = self._buffer[at + len(tag) :]
            self._inside = not self._inside

    def _keep_partial(self, tag: str) -> None:
        """Hold back a suffix that could be the start of ``tag``; consume the rest."""
        keep = 0
        for size in range(min(len(tag) - 1, len(self._buffer)), 0, -1):
            if tag.startswith(self._buffer[-size:]):
                keep = size
                break
        consumed = self._buffer[: len(self._buffer) - keep]
        if self._inside:
            self._command.append(consumed)
        self._buffer = self._buffer[len(self._buffer) - keep :]

    @property
    def open_block(self) -> bool:
        """True while a ``<shell>`` block has started but not closed."""
        return self._inside


@dataclass(slots=True)
class TagRound:
    commands: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        """The text of the message that carries the results back to the model."""
        return "\n\n".join(f"$ {c}\n{r}" for c, r in zip(self.commands, self.results, strict=True))


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = max(0, (limit - 40) // 2)
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters cut …]\n{text[len(text) - half:]}"


def tag_settings(ctx: ToolContext) -> tuple[int, int]:
    raw = ctx.settings.get("tags", {})
    raw = raw if isinstance(raw, dict) else {}
    return (
        int(raw.get("max_rounds", DEFAULT_MAX_ROUNDS)),
        int(raw.get("max_result_chars", DEFAULT_MAX_RESULT_CHARS)),
    )


async def run_shell_tags(answer: str, ctx: ToolContext) -> TagRound | None:
    """Run the ``<shell>`` commands of a complete answer; None when there are none."""
    commands = extract_commands(answer)
    if not commands:
        return None

    _rounds, limit = tag_settings(ctx)
    tool = ShellCommandTool()
    round_ = TagRound()
    for command in commands:
        result = await tool.run({"command": command}, ctx)
        round_.commands.append(command)
        round_.results.append(cap(result.content, limit))
    return round_
