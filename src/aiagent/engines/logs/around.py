"""The lines around the analyser's events, across blocks: the context lines before an
exemplar (the last lines of the previous block when it starts a block), the lines after
it (exemplars that reached the end of their block wait for the next), and the trailing
continuation lines no event took (a bare traceback's frames, whose exception line may
open the next block)."""

from __future__ import annotations

from collections.abc import Callable

from aiagent.engines.logs import events as ev
from aiagent.engines.logs.events import Exemplar, decode


class LinesAround:
    """The lines kept between blocks for the ``size`` context lines of exemplars."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.orphans: list[bytes] = []  # trailing continuation lines no event took
        self.awaiting: list[Exemplar] = []  # exemplars still short of lines after them
        self._tail: list[bytes] = []  # the last context lines above the orphans

    def before(self, raw: list[bytes], begin: int, past_orphans: bool = False) -> list[str]:
        """The context lines above line ``begin`` of the block (``past_orphans``: the
        orphans are the event's own lines, not context)."""
        size = self.size
        lines = raw[max(0, begin - size):begin]
        if len(lines) < size and begin < size:
            earlier = self._tail if past_orphans else self._tail + self.orphans
            missing = size - len(lines)
            lines = earlier[max(0, len(earlier) - missing):] + lines
        return [decode(line, 400) for line in lines]

    def fill(self, raw: list[bytes], start: int, opened: set[int]) -> None:
        """The lines after the awaiting exemplars, from the top of a block (from
        ``start`` for those of the event it went on with, their ids in ``opened``)."""
        waiting, self.awaiting = self.awaiting, []
        for ex in waiting:
            if fill_after(ex, raw, start if id(ex) in opened else 0):
                self.awaiting.append(ex)

    def keep_tail(self, raw: list[bytes], keys: list[bytes], free: int,
                  kind: Callable[[bytes], int], cap: int) -> None:
        """Remember the lines before the next block: trailing continuation lines from
        ``free`` on (at most ``cap``; ``kind``: a key's kind of line) and the context
        lines above them."""
        r = len(raw)
        while r > free and len(raw) - r < cap and kind(keys[r - 1]) == ev.CONTINUATION:
            r -= 1
        if r == 0 and free == 0:
            self.orphans = (self.orphans + raw)[-cap:]
            return
        self.orphans = raw[r:]
        if self.size:
            self._tail = (self._tail + raw[:r][-self.size:])[-self.size:]


def fill_after(ex: Exemplar, raw: list[bytes], start: int) -> bool:
    """The lines after an exemplar, from ``raw``; whether it still waits for more."""
    take = raw[start:start + ex.need_after]
    ex.after.extend(decode(line, 400) for line in take)
    ex.need_after -= len(take)
    return ex.need_after > 0
