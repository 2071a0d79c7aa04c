"""Streaming Markdown: finished blocks are printed once; the block being written is live.

Text arrives in small pieces. :class:`MarkdownStream` keeps the part after the last
*finished* block (a blank line outside a code fence, or a closing fence) as the live
tail; everything before it is handed to ``commit`` exactly once, so long answers are
never re-rendered and the scrollback holds properly rendered Markdown.
"""

from __future__ import annotations

from collections.abc import Callable

FENCES = ("```", "~~~")


def stable_boundary(text: str) -> int:
    """The index up to which ``text`` holds only finished blocks (0 when none)."""
    found = boundaries(text)
    return found[-1] if found else 0


def boundaries(text: str) -> list[int]:
    """Every index where a finished block ends."""
    found: list[int] = []
    pos, fence = 0, ""
    for line in text.splitlines(keepends=True):
        end = pos + len(line)
        complete = line.endswith("\n")
        stripped = line.strip()
        if fence:
            if complete and stripped.startswith(fence) and stripped.strip("`~") == "":
                fence = ""
                found.append(end)
        elif stripped.startswith(FENCES):
            if not complete:
                break
            fence = stripped[:3]
        elif complete and not stripped:
            found.append(end)
        pos = end
    return found


class MarkdownStream:
    def __init__(self, commit: Callable[[str], None]) -> None:
        self.commit = commit
        self.pending = ""
        self.committed_any = False

    def feed(self, text: str) -> None:
        self.pending += text
        cuts = boundaries(self.pending)
        start = 0
        for cut in cuts:
            self._emit(self.pending[start:cut])
            start = cut
        self.pending = self.pending[start:]

    def flush(self) -> None:
        """The response ended: commit what is left."""
        block, self.pending = self.pending, ""
        self._emit(block)

    def reset(self) -> None:
        """The provider restarted the response: forget the unfinished tail."""
        self.pending = ""

    def _emit(self, block: str) -> None:
        if block.strip():
            self.commit(block.strip("\n"))
            self.committed_any = True
