"""A bounded timeline (counts per bucket, the bucket width doubling to stay under a
limit), burstiness of a series of arrivals, and change points in an error rate."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(slots=True)
class Timeline:
    """Counts per bucket on an axis (seconds, or line numbers when the log has no time)."""

    max_buckets: int
    channels: tuple[str, ...] = ("lines", "errors", "warnings")
    origin: float | None = None
    width: float = 1.0
    counts: dict[str, list[float]] = field(default_factory=dict)

    def add(self, at: float, channel: str, n: float = 1.0) -> None:
        if self.origin is None:
            self.origin = math.floor(at)
            self.counts = {c: [] for c in self.channels}
        index = max(0, int((at - self.origin) // self.width))
        while index >= self.max_buckets:
            self._double()
            index = max(0, int((at - self.origin) // self.width))
        series = self.counts[channel]
        if index >= len(series):
            for c in self.channels:
                self.counts[c].extend([0.0] * (index + 1 - len(self.counts[c])))
        series[index] += n

    def add_span(self, start: float, end: float, n: float, channel: str = "lines") -> None:
        """``n`` spread evenly over ``[start, end]`` (a point when the span is empty)."""
        if end <= start or n <= 0:
            self.add(start, channel, n)
            return
        self.add(start, channel, 0.0)  # the origin, if this is the first span
        self.add(end, channel, 0.0)  # widen first, so the span's buckets are final
        assert self.origin is not None
        at = max(start, self.origin)  # before the origin is all in the first bucket
        if at >= end:
            self.add(end, channel, n)
            return
        while at < end:
            edge = min(end, self.origin + (int((at - self.origin) // self.width) + 1) * self.width)
            if edge <= at:
                edge = end
            self.add(at, channel, n * (edge - at) / (end - start))
            at = edge

    def _double(self) -> None:
        self.width *= 2
        for c, series in self.counts.items():
            self.counts[c] = [sum(series[i:i + 2]) for i in range(0, len(series), 2)]

    def buckets(self) -> list[tuple[float, dict[str, float]]]:
        if self.origin is None:
            return []
        size = max(len(s) for s in self.counts.values())
        return [(self.origin + i * self.width,
                 {c: (s[i] if i < len(s) else 0.0) for c, s in self.counts.items()})
                for i in range(size)]


@dataclass(slots=True)
class Arrivals:
    """First, last, count and the burstiness of the gaps between arrivals (Welford):
    B = (sd - mean) / (sd + mean) of the gaps, -1 regular, 0 random, near 1 bursty."""

    count: int = 0
    first: float | None = None
    last: float | None = None
    _mean: float = 0.0
    _m2: float = 0.0

    def add(self, at: float) -> None:
        if self.last is not None:
            gap = max(0.0, at - self.last)
            n = self.count  # gaps so far + 1
            delta = gap - self._mean
            self._mean += delta / n
            self._m2 += delta * (gap - self._mean)
        else:
            self.first = at
        self.count += 1
        self.last = at if self.last is None else max(self.last, at)

    def merge(self, other: Arrivals) -> None:
        """Another series' arrivals counted in (first, last and count; the gaps' spread
        stays this series', as the two cannot be interleaved after the fact)."""
        if other.first is None or other.last is None:
            return
        self.first = other.first if self.first is None else min(self.first, other.first)
        self.last = other.last if self.last is None else max(self.last, other.last)
        self.count += other.count

    def burstiness(self) -> float:
        gaps = self.count - 1
        if gaps < 2:
            return 0.0
        sd = math.sqrt(self._m2 / gaps)
        total = sd + self._mean
        return round((sd - self._mean) / total, 3) if total > 0 else 1.0


@dataclass(slots=True)
class Series:
    """One cluster's events per bucket from the log's origin, in at most ``size`` buckets
    (the width doubles): how many came before a given place on the axis."""

    origin: float
    size: int = 32
    width: float = 1.0
    counts: list[int] = field(default_factory=list)

    def add(self, at: float, n: int = 1) -> None:
        index = max(0, int((at - self.origin) // self.width))
        while index >= self.size:
            self.width *= 2
            self.counts = [sum(self.counts[i:i + 2]) for i in range(0, len(self.counts), 2)]
            index = max(0, int((at - self.origin) // self.width))
        if index >= len(self.counts):
            self.counts.extend([0] * (index + 1 - len(self.counts)))
        self.counts[index] += n

    def merge(self, other: Series) -> None:
        for i, n in enumerate(other.counts):
            if n:
                self.add(other.origin + (i + 0.5) * other.width, n)

    def before(self, edge: float) -> float:
        """Events before ``edge`` (those of the bucket it cuts, in proportion)."""
        return _before([(self.origin + i * self.width, float(n)) for i, n in enumerate(self.counts)],
                       self.width, edge)


def _before(buckets: list[tuple[float, float]], width: float, edge: float) -> float:
    total = 0.0
    for start, n in buckets:
        if start + width <= edge:
            total += n
        elif start < edge:
            total += n * (edge - start) / width
    return total


def lines_before(timeline: Timeline, edge: float) -> tuple[float, float]:
    """The lines of ``timeline`` before ``edge`` and from it on."""
    buckets = [(at, counts["lines"]) for at, counts in timeline.buckets()]
    before = _before(buckets, timeline.width, edge)
    return before, sum(n for _, n in buckets) - before


@dataclass(frozen=True, slots=True)
class ChangePoint:
    index: int  # the first bucket of the new regime
    rate_before: float
    rate_after: float
    score: float


def change_points(errors: list[float], lines: list[float], *, limit: int,
                  min_score: float = 10.0, min_size: int = 2,
                  min_ratio: float = 2.0) -> list[ChangePoint]:
    """Where the error rate (errors per line) shifts, by binary segmentation with a
    binomial log-likelihood gain; at most ``limit``, in bucket order."""
    found: list[ChangePoint] = []
    spans = [(0, len(errors))]
    while spans and len(found) < limit:
        best: tuple[ChangePoint, int, int] | None = None
        for lo, hi in spans:
            cp = _best_split(errors, lines, lo, hi, min_size)
            if cp and cp.score >= min_score and _ratio(cp) >= min_ratio \
                    and (best is None or cp.score > best[0].score):
                best = (cp, lo, hi)
        if best is None:
            break
        cp, lo, hi = best
        found.append(cp)
        spans.remove((lo, hi))
        spans += [(lo, cp.index), (cp.index, hi)]
    return sorted(found, key=lambda c: c.index)


def _best_split(errors: list[float], lines: list[float], lo: int, hi: int,
                min_size: int) -> ChangePoint | None:
    if hi - lo < 2 * min_size:
        return None
    e_all, n_all = sum(errors[lo:hi]), sum(lines[lo:hi])
    if n_all <= 0:
        return None
    base = _loglik(e_all, n_all)
    best: ChangePoint | None = None
    e_left = n_left = 0.0
    for k in range(lo, hi - min_size):
        e_left += errors[k]
        n_left += lines[k]
        if k + 1 - lo < min_size or n_left <= 0 or n_all - n_left <= 0:
            continue
        e_right, n_right = e_all - e_left, n_all - n_left
        gain = _loglik(e_left, n_left) + _loglik(e_right, n_right) - base
        if best is None or gain > best.score:
            best = ChangePoint(k + 1, e_left / n_left, e_right / n_right, round(gain, 2))
    return best


def _ratio(cp: ChangePoint) -> float:
    low, high = sorted((cp.rate_before, cp.rate_after))
    return high / low if low > 0 else float("inf")


def _loglik(e: float, n: float) -> float:
    e = min(e, n)
    p = e / n
    out = 0.0
    if e > 0:
        out += e * math.log(p)
    if n - e > 0 and p < 1:
        out += (n - e) * math.log(1 - p)
    return out
