"""The analyser's axis: where a line's time is and what it reads, the span of times seen,
and the timeline and per-cluster series that events are placed on.

Where a key's timestamp sits is learnt once per shape (after that a stamp whose text but
its fraction of a second was read before costs no regular expression; many lines' stamps
are read together). A log with no time has line numbers for its axis.
"""

from __future__ import annotations

import operator
from collections import Counter
from itertools import compress, repeat
from operator import itemgetter

from aiagent.engines.logs.events import ClusterStats, decode
from aiagent.engines.logs.formats import ERROR
from aiagent.engines.logs.timeline import Series, Timeline
from aiagent.engines.logs.timeparse import Where, find_time, parse_time, time_in, times_in

STAMP_KEY = 40  # lines whose keys start alike have their time in the same place
NOWHERE = (-1, -1, -1, -1)  # a shape whose stamp was not looked for yet
SAMPLES = 64  # lines per block whose time places the block's volume on the timeline
Tally = list[tuple[int, bool, int]]  # (cluster or -1: its series is done, error, second)


class TimeAxis:
    """Times of lines, the range seen, and the timeline (``timed``: seconds, or line
    numbers when the log has no time; None until the first block says)."""

    def __init__(self, buckets: int) -> None:
        self.timeline = Timeline(buckets)
        self.timed: bool | None = None
        self.start_at: float | None = None
        self.end_at: float | None = None
        self.last_at: float | None = None
        self.unique = False  # most lines of this block are new shapes: learn no shape
        self.stamps: dict[bytes, Where | None] = {}  # where a shape's time is
        self._heads: dict[bytes, Where | None] = {}  # the same, by a line's first bytes
        self._stamp_values: dict[str, float | None] = {}  # recent stamps, read
        self._seconds: dict[bytes, float] = {}  # … their whole seconds (time_in)

    def head_time(self, key: bytes, line: bytes) -> float | None:
        """The time on an event's head line. Where the stamp sits is learnt once per
        shape (key): the lines of a shape have their digits in the same places."""
        stamps = self.stamps
        where = stamps.get(key, NOWHERE)
        if where is NOWHERE:  # a new shape: lines that start alike have their time alike
            start = key[:STAMP_KEY]  # (a log of unique lines has few distinct heads)
            where = self._heads.get(start, NOWHERE)
            if where is NOWHERE:
                if len(self._heads) >= 4096:
                    self._heads.clear()
                at, found = find_time(decode(line, 200))
                stamps[key] = self._heads[start] = found
                return at
            if not self.unique:  # (the block's keys are forgotten at its end)
                stamps[key] = where
        if where is None:
            return parse_time(decode(line, 200))
        if len(self._stamp_values) > 4096:
            self._stamp_values.clear()
        return time_in(line, where, self._stamp_values, self._seconds)

    def head_times(self, hot: list[int], raw: list[bytes], keys: list[bytes]
                   ) -> list[float | None]:
        """The times :meth:`head_time` gives the lines ``hot`` whose stamps sit where the
        first one's does, read at once (:func:`times_in`); None for the others."""
        if len(hot) < 64:
            return [None] * len(hot)
        pick = itemgetter(*hot)
        lines, hot_keys = list(pick(raw)), pick(keys)
        wheres = list(map(self.stamps.get, hot_keys, repeat(NOWHERE))) if self.stamps \
            else [NOWHERE] * len(hot)
        if NOWHERE in wheres:
            heads = list(map(self._heads.get, map(itemgetter(slice(0, STAMP_KEY)), hot_keys),
                             repeat(NOWHERE)))
            if wheres.count(NOWHERE) == len(wheres):
                wheres = heads
            else:
                wheres = [h if w is NOWHERE else w for w, h in zip(wheres, heads, strict=True)]
        where = wheres[0]
        if where is None or where is NOWHERE:
            return [None] * len(hot)
        alike = list(map(operator.eq, wheres, repeat(where)))
        if all(alike):
            return times_in(lines, where, self._seconds)
        times: list[float | None] = [None] * len(hot)
        for n, at in zip(compress(range(len(hot)), alike),
                         times_in(list(compress(lines, alike)), where, self._seconds),
                         strict=True):
            times[n] = at
        return times

    def place_volume(self, raw: list[bytes], keys: list[bytes], before: int) -> None:
        """Put a block's lines (``before`` lines came before it) on the timeline: the
        times of a few lines, and the lines between two of them spread evenly over the
        time between."""
        if not raw:
            return
        step = max(1, len(raw) // SAMPLES)
        picks = sorted({*range(0, len(raw), step), len(raw) - 1})
        times = [self.head_time(keys[i], raw[i]) for i in picks]
        if self.timed is None:
            self.timed = any(t is not None for t in times)
        if not self.timed:
            self.timeline.add_span(before + 1, before + len(raw), len(raw))
            return
        known = [(i, t) for i, t in zip(picks, times, strict=True) if t is not None]
        if not known:
            return
        prev_i, prev_t = -1, self.last_at if self.last_at is not None else known[0][1]
        for i, at in known:
            self.timeline.add_span(prev_t, at, i - prev_i)
            prev_i, prev_t = i, at
            self.saw(at)
        if prev_i < len(raw) - 1:
            self.timeline.add(prev_t, "lines", len(raw) - 1 - prev_i)

    def saw(self, at: float) -> None:
        self.last_at = at
        self.start_at = at if self.start_at is None else min(self.start_at, at)
        self.end_at = at if self.end_at is None else max(self.end_at, at)

    def saw_many(self, last: float | None, low: float, high: float) -> None:
        """:meth:`saw` for events counted in bulk: the last, earliest and latest."""
        if last is not None:
            self.last_at = last
        if low <= high:
            self.start_at = low if self.start_at is None else min(self.start_at, low)
            self.end_at = high if self.end_at is None else max(self.end_at, high)

    def axis(self, line: int, at: float | None) -> float:
        if self.timed and at is not None:
            return at
        return float(line) if not self.timed else (self.last_at or 0.0)

    def arrive(self, stats: ClusterStats, level: int, line: int, at: float | None) -> None:
        """An event of ``stats`` at ``at`` (None: no time): arrivals and the timeline."""
        if at is not None and self.timed:
            self.saw(at)
        where = self.axis(line, at)
        stats.arrivals.add(where)
        if stats.series is None:
            origin = self.timeline.origin
            stats.series = Series(where if origin is None else origin)
        stats.series.add(where)
        self.timeline.add(where, "errors" if level >= ERROR else "warnings")

    def tally(self, clusters: dict[int, ClusterStats], tally: Tally, origin: float) -> None:
        """Events counted in bulk, per second, onto the timeline and the series of
        ``clusters`` they name (see :func:`series_later`)."""
        for (cluster, error, second), n in Counter(tally).items():
            at = origin + second + 0.5  # (inside that second's bucket whatever its width)
            if cluster >= 0:
                series = clusters[cluster].series
                assert series is not None
                series.add(at, n)
            self.timeline.add(at, "errors" if error else "warnings", n)


def series_later(stats: ClusterStats, at: float, origin: float) -> int:
    """The cluster whose series counts an event at ``at`` later, in a tally (-1: counted
    now, its series not being on the timeline's origin)."""
    series = stats.series
    if series is None:
        series = stats.series = Series(origin)
    if series.origin == origin:
        return stats.cluster_id
    series.add(at)
    return -1
