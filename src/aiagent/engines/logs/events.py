"""What the analyser keeps per cluster and per event: exemplars with the lines around
them, arrival statistics; and the grouping of a stack trace's lines into one event."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiagent.engines.logs.timeline import Arrivals, Series

BLANK, LINE, FRAME_TAIL, CONTINUATION = range(4)
"""Kinds of line: blank; an ordinary line; an ordinary line that also ends a stack trace
(an exception line, a Go function line) when it follows one; a continuation line."""



def decode(line: bytes, limit: int = 1000) -> str:
    """A line's text, cut to ``limit`` characters."""
    return line[:limit * 4].decode("utf-8", "replace")[:limit].rstrip("\r")

@dataclass(slots=True, eq=False)
class KeyInfo:
    """What every line with the same masked shape has in common (one object for all the
    keys alike: compared and hashed as itself)."""

    cluster: int | None  # None: a continuation or blank line, part of an event
    level: int
    kind: int
    format: str


@dataclass(slots=True)
class Exemplar:
    line: int
    at: float | None  # seconds, when the log has times
    lines: list[str]  # the event: its head and continuation lines (capped)
    before: list[str]
    after: list[str] = field(default_factory=list)
    need_after: int = 0


@dataclass(slots=True)
class ClusterStats:
    cluster_id: int
    message: str  # the first message, the template's fallback
    level: int = 0
    count: int = 0  # lines with this shape, events' inner lines excepted
    events: int = 0  # events led by such a line (errors and warnings only)
    arrivals: Arrivals = field(default_factory=Arrivals)
    series: Series | None = None  # events per stretch of the log (errors and warnings)
    first: Exemplar | None = None
    sample: Exemplar | None = None  # a later event, picked uniformly (reservoir sampling)
    formats: set[str] = field(default_factory=set)


def merge(into: ClusterStats, other: ClusterStats) -> None:
    """``other``'s lines and events counted in ``into`` (its exemplars if earlier)."""
    into.count += other.count
    into.events += other.events
    into.level = max(into.level, other.level)
    into.formats |= other.formats
    into.arrivals.merge(other.arrivals)
    if other.series is not None:
        if into.series is None:
            into.series = other.series
        else:
            into.series.merge(other.series)
    if other.first is not None and (into.first is None or other.first.line < into.first.line):
        into.first, into.sample = other.first, into.first if into.sample is None else into.sample
    elif into.sample is None:
        into.sample = other.first


@dataclass(slots=True)
class OpenEvent:
    """An event that reached the end of a block and may go on in the next one."""

    lines: list[str]
    chars: int
    last_kind: int
    exemplars: list[Exemplar]
    keep: bool = True  # False: counted only, its lines not kept


def joins(kind: int, last_kind: int, next_kind: int | None) -> bool:
    """Whether a line of ``kind`` continues the event whose last line was ``last_kind``."""
    if kind == CONTINUATION:
        return True
    if kind == FRAME_TAIL:
        return last_kind == CONTINUATION or next_kind == CONTINUATION
    if kind == BLANK:  # a Go panic: "panic: …", "", "goroutine 1 [running]:"
        return next_kind == CONTINUATION
    return False
