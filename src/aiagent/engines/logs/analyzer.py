"""The streaming static analysis: blocks of lines in, cluster statistics out.

Every line is counted at C speed: a line's *key* is the line with its digits and hex
letters turned into ``0`` (``bytes.translate``), the keys of a block are counted with a
``Counter``, and only a key not seen before is parsed and mined (``miner.TemplateMiner``). Only lines
whose key is a warning or worse are visited one by one: their event (a stack trace is
one event), time, exemplars and context. Where a key's timestamp sits is learnt once
(after that a stamp whose text but its fraction of a second was read before costs no
regular expression; a block's are read together), and a one-line event that is not kept
as an exemplar is only counted and placed in time, in bulk: its arrival at once, its
timeline and series counts per second (``bulk=False``: one by one, the same report). Nothing is sampled: counts, the first error
and the change points come from every line. Memory is bounded: the key cache is cleared
past its limit, exemplars are capped, the timeline coarsens.

Parts with their own state: the times of lines, the span seen and the timeline and series
(``timeaxis.TimeAxis``); the context lines and trailing frames kept between blocks
(``around.LinesAround``).
"""

from __future__ import annotations

import math
import operator
import random
import re
from collections import Counter
from collections.abc import Callable
from itertools import compress, repeat

from aiagent.engines.logs import events as ev
from aiagent.engines.logs.around import LinesAround, fill_after
from aiagent.engines.logs.events import ClusterStats, Exemplar, KeyInfo, OpenEvent, decode
from aiagent.engines.logs.formats import ERROR, RANK, WARNING
from aiagent.engines.logs.miner import TemplateMiner
from aiagent.engines.logs.parse import MAX_MESSAGE, LineParser
from aiagent.engines.logs.rules import limits, patterns
from aiagent.engines.logs.timeaxis import TimeAxis, series_later
from aiagent.engines.logs.timeparse import parse_time

KEY_TABLE = bytes.maketrans(b"0123456789abcdefABCDEF", b"0" * 22)
BLANK_INFO = KeyInfo(None, 0, ev.BLANK, "blank")
CONTINUATION_INFO = KeyInfo(None, 0, ev.CONTINUATION, "continuation")
STATUS = re.compile(rb'" ([45])\d\d ')  # an access log's 4xx/5xx: digits vanish from keys
KEY_BYTES_LIMIT = 16 * 1024 * 1024
MAX_CLUSTERS = 20000  # info-level ones hold a message only
MAX_HOT_CLUSTERS = 2000  # error and warning ones hold two exemplars each
Progress = Callable[[int, int], None]


def _long_line(block: bytes, limit: int) -> bool:
    """Whether ``block`` may hold a line longer than ``limit`` bytes: such a line fills
    a whole window of ``limit // 2`` bytes with no newline (checked at C speed)."""
    width = max(1, limit // 2)
    return any(block.find(b"\n", at, at + width) < 0
               for at in range(0, len(block) - width + 1, width))


class Analyzer:
    """``feed`` blocks of whole lines in order; read the results off the attributes."""

    def __init__(self, on_progress: Progress | None = None, bulk: bool = True) -> None:
        cfg = limits()
        self.max_line = int(cfg["read"]["max_line_bytes"])
        self.context = int(cfg["report"]["context_lines"])
        self.around = LinesAround(self.context)  # context lines and orphans between blocks
        self.max_keys = int(cfg["mining"]["max_keys"])
        self.rules = patterns()
        self.miner = TemplateMiner()
        self.parser = LineParser()  # the header format, learnt from the first lines
        self.time = TimeAxis(int(cfg["report"]["timeline_buckets"]))  # times, timeline
        self.timeline = self.time.timeline
        self.on_progress = on_progress
        self.bulk = bulk  # the usual events counted in bulk (False: one by one, as a check)
        self.bytes = self.lines = self.events = self.inner_lines = self.pruned_lines = 0
        self.blank_lines = self.pruned_events = 0
        self.levels: Counter[int] = Counter()
        self.formats: Counter[str] = Counter()
        self.clusters: dict[int, ClusterStats] = {}
        self.first_error: Exemplar | None = None
        self.first_error_cluster: int | None = None
        self._keys: dict[bytes, KeyInfo] = {}
        self._infos: dict[tuple[int, str, int, str], KeyInfo] = {}  # (cluster, level, …)
        self._key_bytes = 0
        self._new_keys = 0  # in the block (or line) just learnt
        self._hot: set[bytes] = set()
        self._open: OpenEvent | None = None
        self._held = b""
        self._hot_clusters = 0
        self._rng = random.Random(0)  # exemplar sampling: the same log, the same report

    # ---- one block -------------------------------------------------------------------

    def feed(self, block: bytes) -> None:
        """Analyse a block of whole lines. Its last line is held back until the next
        block (or :meth:`finish`), so that every line has the line after it at hand."""
        data = self._held + block
        cut = data.rfind(b"\n", 0, len(data) - 1)
        if cut < 0:
            self._held = data
            return
        self._held = data[cut + 1:]
        self._feed(data[:cut + 1])

    def finish(self) -> None:
        held, self._held = self._held, b""
        if held:
            self._feed(held)
        self._fold()

    def _fold(self) -> None:
        """Clusters whose events the miner merged since (their template grew a variable):
        one item each, under the id they merged into."""
        for cluster_id in [c for c in self.clusters if self.miner.resolve(c) != c]:
            gone = self.clusters.pop(cluster_id)
            into = self.miner.resolve(cluster_id)
            stats = self.clusters.get(into)
            if self.first_error_cluster == cluster_id:
                self.first_error_cluster = into
            if stats is None:
                gone.cluster_id = into
                self.clusters[into] = gone
                continue
            ev.merge(stats, gone)

    def _feed(self, block: bytes) -> None:
        raw = block.split(b"\n")
        raw.pop()
        keys = block.translate(KEY_TABLE).split(b"\n")
        keys.pop()
        cut = _long_line(block, self.max_line) and max(map(len, raw)) > self.max_line
        if cut:
            raw = [line[:self.max_line] for line in raw]
            keys = [key[:self.max_line] for key in keys]
        _mark_status(block, keys)
        counts = Counter(keys)
        self._learn(counts, keys, raw, block, cut)
        unique = self.time.unique = 2 * self._new_keys > len(keys)
        self._count(counts, len(keys))
        self.time.place_volume(raw, keys, self.lines)
        start = self._go_on(raw, keys)
        if not self._hot.isdisjoint(counts):
            start = self._events(raw, keys, start)
        self.around.keep_tail(raw, keys, len(raw) if self._open is not None else start,
                              self._kind, self.rules.event_max_lines)
        if unique:  # most lines of the block were new shapes: no use keeping them
            self._forget_keys()
        self.lines += len(raw)
        self.bytes += len(block)
        if self.on_progress is not None:
            self.on_progress(self.bytes, self.lines)


    def _learn(self, counts: Counter[bytes], keys: list[bytes], raw: list[bytes],
               block: bytes = b"", cut: bool = True) -> None:
        new = [key for key in counts if key not in self._keys] if self._keys else list(counts)
        self._new_keys = len(new)
        if not new:
            return
        self.parser.no_fatal = False  # (known for many new lines at once: _classify_many)
        if len(self._keys) + len(new) > self.max_keys or self._key_bytes > KEY_BYTES_LIMIT:
            self._forget_keys()
            new = list(counts)
        if not self.parser.headers.learned:
            self.parser.learn([decode(line, self.max_line) for line in raw[:200]])
        if len(new) <= 16:  # the usual case: a few new shapes in a block of known ones
            infos = [self._classify(decode(raw[keys.index(key)], self.max_line)) for key in new]
        else:  # many new shapes (a log of unique lines): parsed and mined together
            infos = self._classify_many(new, keys, raw, block, cut)
        self._remember(new, infos)

    def _remember(self, new: list[bytes], infos: list[KeyInfo]) -> None:
        """The new keys' infos kept; those of clusters pruned since are not (their lines
        count as pruned)."""
        clusters = self.clusters
        kinds = set(infos)
        if any(info.cluster is not None and info.cluster not in clusters for info in kinds):
            for key, info in zip(new, infos, strict=True):
                if info.cluster is None or info.cluster in clusters:
                    self._add_key(key, info)
            return
        self._keys.update(zip(new, infos, strict=True))
        self._key_bytes += sum(map(len, new))
        hot = {info for info in kinds if info.cluster is not None and info.level >= WARNING}
        if hot:
            self._hot.update(compress(new, map(hot.__contains__, infos)))

    def _add_key(self, key: bytes, info: KeyInfo) -> None:
        self._keys[key] = info
        self._key_bytes += len(key)
        if info.cluster is not None and info.level >= WARNING:
            self._hot.add(key)

    def _forget_keys(self) -> None:
        self._keys.clear()
        self._hot.clear()
        self._key_bytes = 0
        self.time.stamps.clear()

    def _classify(self, text: str) -> KeyInfo:
        """A new line's cluster, level and kind. A line in the header format is a record;
        only another may continue an event (a frame, the exception line under one)."""
        if not text or text.isspace():
            return BLANK_INFO
        m = self.parser.headed(text)
        if m is None and self.rules.continuation.match(text):
            return CONTINUATION_INFO
        message, name, shape, fmt = self.parser.quick_headed(text, m)  # (no other field)
        kind = ev.FRAME_TAIL if m is None and self.rules.after_frame.match(text) else ev.LINE
        if not message or len(message) > MAX_MESSAGE:
            message, shape = (message or text)[:MAX_MESSAGE], None
        return self._info(self.miner.add(message, name, shape), name, kind, fmt, message)

    def _classify_many(self, new: list[bytes], keys: list[bytes], raw: list[bytes],
                       block: bytes, cut: bool) -> list[KeyInfo]:
        """:meth:`_classify` for the lines of the ``new`` keys, their messages mined
        together (``block``: the lines; ``cut``: some were longer than the limit)."""
        whole = block.decode("utf-8", "replace") if len(new) == len(keys) and block \
            and not cut and b"\r" not in block else None
        quick = self.parser.quick_block(whole, len(keys)) if whole is not None else None
        if quick is not None:  # (the usual case: every line new, in the header format)
            name, n = self.parser.headers.format.name, len(keys)  # type: ignore[union-attr]
            # (no line text needed: quick_block gives no empty or over-long message)
            return self._mined(range(n), [], [ev.LINE] * n, quick, [name] * n, [BLANK_INFO] * n)
        # many new shapes: whether none has a fatal hint, known for all at once
        self.parser.no_fatal = len(new) > 256 and self.rules.fatal_hint.absent_bytes(block)
        texts = _texts(new, keys, raw, b"" if cut else block, self.max_line, whole)
        infos: list[KeyInfo] = [BLANK_INFO] * len(texts)
        fmt = self.parser.headers.format
        found: list[re.Match[str] | None] = \
            list(map(fmt.quick.match, texts)) if fmt is not None else [None] * len(texts)
        found_kinds: list[re.Match[str] | None] = [None] * len(texts)  # (None: an ordinary line)
        if None in found:  # lines not in the header format: which continue an event
            line_kind = self.rules.line_kind.match
            found_kinds = [line_kind(text) if m is None else None
                           for text, m in zip(texts, found, strict=True)]
        todo: list[int] | range = range(len(texts))
        if not all(texts) or any(map(str.isspace, texts)) \
                or any(m.lastgroup == "continuation" for m in filter(None, found_kinds)):
            todo = []  # (blank lines and continuations are not mined)
            for n, text in enumerate(texts):
                if text and not text.isspace():
                    got = found_kinds[n]
                    if got is not None and got.lastgroup == "continuation":
                        infos[n] = CONTINUATION_INFO
                    else:
                        todo.append(n)
            texts, found = [texts[n] for n in todo], [found[n] for n in todo]
        kinds = [ev.LINE if found_kinds[n] is None else ev.FRAME_TAIL for n in todo]
        formats: list[str] = []
        quick = self.parser.quick_many(texts, formats, found)
        return self._mined(todo, texts, kinds, quick, formats, infos)

    def _mined(self, todo: list[int] | range, lines: list[str], kinds: list[int],
               quick: tuple[list[str], list[str], list[bytes | None]], formats: list[str],
               infos: list[KeyInfo]) -> list[KeyInfo]:
        """``infos`` with those of the lines ``todo`` (their texts: ``lines``) set: their
        messages, levels and shapes (``quick``, in the same order) mined together."""
        messages, names, shapes = quick
        if not all(messages) or max(map(len, messages), default=0) > MAX_MESSAGE:
            for j, message in enumerate(messages):
                if not message or len(message) > MAX_MESSAGE:  # (an empty message: the line's text)
                    messages[j], shapes[j] = (message or lines[j])[:MAX_MESSAGE], None
        events = self.miner.add_many(messages, names, shapes)
        # the infos: those made before looked up at once (as _info would give them), the
        # others made in order; one by one where a cluster made or turned hot might prune
        # others (what was looked up first could be gone by then)
        distinct = len(set(events))  # (each may make a cluster or turn one hot, once)
        mined: list[KeyInfo | None]
        if len(self.clusters) + distinct >= MAX_CLUSTERS \
                or self._hot_clusters + distinct >= MAX_HOT_CLUSTERS:
            mined = list(map(self._info, events, names, kinds, formats, messages))
        else:
            keys = zip(events, names, kinds, formats, strict=True)
            mined = list(map(self._infos.get, keys))
            for j in compress(range(len(mined)), map(operator.is_, mined, repeat(None))):
                mined[j] = self._info(events[j], names[j], kinds[j], formats[j], messages[j])
        if isinstance(todo, range):  # (none is None now)
            return mined  # type: ignore[return-value]
        for n, got in zip(todo, mined, strict=True):
            infos[n] = got  # type: ignore[assignment]
        return infos

    def _info(self, cluster: int, name: str, kind: int, fmt: str, message: str) -> KeyInfo:
        """The line's cluster statistics made or updated, and its KeyInfo."""
        level = RANK[name]
        stats = self.clusters.get(cluster)
        if stats is None:
            if len(self.clusters) >= MAX_CLUSTERS:
                self._prune()
            stats = self.clusters[cluster] = ClusterStats(cluster, message[:400])
        elif level <= stats.level and fmt in stats.formats:  # (the usual case)
            got = self._infos.get((cluster, name, kind, fmt))
            if got is not None:
                return got
        if level >= WARNING > stats.level:
            if self._hot_clusters >= MAX_HOT_CLUSTERS:
                self._prune(hot=True)
            self._hot_clusters += 1
        if level > stats.level:
            stats.level = level
        stats.formats.add(fmt)
        key = (cluster, name, kind, fmt)  # one KeyInfo for all the keys alike
        got = self._infos.get(key)
        if got is None:
            got = self._infos[key] = KeyInfo(cluster, level, kind, fmt)
        return got

    def _prune(self, hot: bool = False) -> None:
        """Too many clusters (a log of unique lines): forget the smaller half of the
        info-level ones, or (``hot``) of the error and warning ones, by events. Lines
        counted before stay counted; lines of theirs that come later count as
        ``pruned_lines`` (no level, no cluster)."""
        kept = [c for c in self.clusters.values() if (c.level >= WARNING) == hot]
        kept.sort(key=lambda c: (c.events, c.count))
        gone = {stats.cluster_id for stats in kept[:len(kept) // 2 + 1]}
        for cluster_id in gone:  # their lines so far stay in the level and format counts
            del self.clusters[cluster_id]
        self._infos = {k: v for k, v in self._infos.items() if k[0] not in gone}
        for key in [k for k, info in self._keys.items() if info.cluster in gone]:
            del self._keys[key]
            self._hot.discard(key)
        if hot:
            self._hot_clusters -= len(gone)

    def _count(self, counts: Counter[bytes], lines: int) -> None:
        infos = map(self._keys.get, counts)
        tally: Counter[KeyInfo | None]
        if len(counts) == lines:  # every line a shape of its own: counted at C speed
            tally = Counter(infos)
        else:
            tally = Counter()
            for info, n in zip(infos, counts.values(), strict=True):
                tally[info] += n
        for info, n in tally.items():
            if info is None:  # its cluster was pruned while this block was learnt
                self.pruned_lines += n
                self.events += n
                continue
            if info.kind == ev.BLANK:
                self.blank_lines += n
                continue
            if info.cluster is None:
                self.inner_lines += n
                continue
            self.clusters[info.cluster].count += n
            self.levels[info.level] += n
            self.formats[info.format] += n
            self.events += n

    def _uncount(self, key: bytes) -> None:
        """A line counted as its own event turned out to be inside a stack trace."""
        info = self._keys.get(key)
        if info is not None and info.cluster is not None:
            self.clusters[info.cluster].count -= 1
            self.levels[info.level] -= 1
            self.formats[info.format] -= 1
            self.events -= 1
            self.inner_lines += 1

    def _held_kind(self) -> int | None:
        """The kind of the line held back for the next block (learnt now if new)."""
        if not self._held:
            return None
        raw = self._held.rstrip(b"\n")[:self.max_line]
        keys = [raw.translate(KEY_TABLE)]
        _mark_status(raw, keys)
        if keys[0] not in self._keys:
            self._learn(Counter(keys), keys, [raw])
        return self._kind(keys[0])

    def _kind(self, key: bytes) -> int:
        info = self._keys.get(key)
        return info.kind if info is not None else ev.LINE

    def _go_on(self, raw: list[bytes], keys: list[bytes]) -> int:
        """Lines at the top of this block that belong to the previous block's last event,
        and the after-context its exemplars still wait for. Returns the first free line."""
        start, opened_exemplars = 0, set()
        if self._open is not None:
            opened, self._open = self._open, None
            start = self._extend(opened, raw, keys, 0)
            if self._open is None:
                opened_exemplars = {id(ex) for ex in opened.exemplars}
                self.around.awaiting.extend(opened.exemplars)
        self.around.fill(raw, start, opened_exemplars)
        return start

    def _extend(self, event: OpenEvent, raw: list[bytes], keys: list[bytes], j: int) -> int:
        """Absorb the lines from ``j`` that continue ``event``; the index after them."""
        rules = self.rules
        while j < len(raw):
            kind = self._kind(keys[j])
            following = self._kind(keys[j + 1]) if j + 1 < len(raw) else self._held_kind()
            if not ev.joins(kind, event.last_kind, following):
                break
            if kind == ev.FRAME_TAIL:
                self._uncount(keys[j])
            if event.keep and len(event.lines) < rules.event_max_lines \
                    and event.chars < rules.event_max_chars:
                text = decode(raw[j])
                event.lines.append(text)
                event.chars += len(text)
            event.last_kind = kind if kind != ev.BLANK else event.last_kind
            j += 1
        if j == len(raw):
            self._open = event
        return j

    def _event(self, i: int, raw: list[bytes], keys: list[bytes], floor: int) -> int:
        """Count the event led by line ``i``; keep it as an exemplar when it is its
        cluster's first or the reservoir sample picks it. Returns the index after it."""
        info = self._keys.get(keys[i])
        stats = self.clusters.get(info.cluster) if info and info.cluster is not None else None
        if stats is None or info is None:  # pruned while this block was read
            self.pruned_events += 1
            return i + 1
        stats.events += 1
        first_error = info.level >= ERROR and self.first_error is None
        keep = stats.first is None or first_error or self._rng.random() * stats.events < 1
        after = self._keys.get(keys[i + 1]) if i + 1 < len(raw) else None
        if not keep and info.kind == ev.LINE and after is not None and after.kind == ev.LINE:
            # (a one-line event: the next line is known to be an ordinary one)
            at = self.time.head_time(keys[i], raw[i])
            if at is not None:  # counted only: no lines kept, no context needed
                self.time.arrive(stats, info.level, self.lines + i + 1, at)
                return i + 1
        return self._whole_event(i, raw, keys, floor, info, stats, keep, first_error)

    def _whole_event(self, i: int, raw: list[bytes], keys: list[bytes], floor: int,
                     info: KeyInfo, stats: ClusterStats, keep: bool, first_error: bool) -> int:
        """:meth:`_event` past the choice of keeping it: its lines, time and context."""
        begin = i
        if info.kind == ev.FRAME_TAIL:  # a bare traceback: its frames come before it
            while begin > floor and self._kind(keys[begin - 1]) == ev.CONTINUATION \
                    and i - begin < self.rules.event_max_lines:
                begin -= 1
        prefix: list[bytes] = []
        if info.kind == ev.FRAME_TAIL and begin == 0 and floor == 0:
            prefix = self.around.orphans  # its frames ended the previous block
        lines = [decode(line) for line in [*prefix, *raw[begin:i + 1]]] if keep else []
        event = OpenEvent(lines, sum(map(len, lines)), info.kind, [], keep=keep)
        after = self._keys.get(keys[i + 1]) if i + 1 < len(raw) else None
        if after is not None and after.kind == ev.LINE:  # the common case: a one-line event
            end = i + 1
        else:
            end = self._extend(event, raw, keys, i + 1)
        time = self.time
        at = time.head_time(keys[i], raw[i])
        before: list[str] | None = None
        if at is None or keep:
            before = self.around.before(raw, begin, bool(prefix))
            at = at if at is not None else _time_above(before, time.last_at)
        time.arrive(stats, info.level, self.lines + i + 1, at)
        if keep and before is not None:
            ex = Exemplar(self.lines + i + 1, at if time.timed else None, event.lines, before,
                          need_after=self.context)
            self._keep(stats, ex, first_error)
            event.exemplars.append(ex)
            if end < len(raw) and fill_after(ex, raw, end):
                self.around.awaiting.append(ex)
        return end

    def _events(self, raw: list[bytes], keys: list[bytes], start: int) -> int:
        """The events led by the block's warning and error lines from ``start`` on (see
        :meth:`_event`); the index after the last."""
        hot = list(compress(range(len(keys)), map(self._hot.__contains__, keys)))
        if self.bulk and self.time.timed and self.timeline.origin is not None:
            return self._events_in_bulk(hot, raw, keys, start)
        for i in hot:
            if i >= start:
                start = self._event(i, raw, keys, start)
        return start

    def _events_in_bulk(self, hot: list[int], raw: list[bytes], keys: list[bytes],
                        start: int) -> int:
        """:meth:`_events` with the usual event (one line, timed, not kept as an exemplar)
        counted in place: its arrival at once, its place on the timeline and its cluster's
        series tallied per second and added once per second at the end (they count per
        bucket, and a bucket is a whole number of seconds from the origin: the same
        counts as event by event). The rest goes through :meth:`_whole_event`."""
        time = self.time
        known, clusters, rng, head_time = self._keys.get, self.clusters, self._rng.random, \
            time.head_time
        origin = self.timeline.origin
        assert origin is not None
        tally: list[tuple[int, bool, int]] = []  # (cluster or -1: its series is done, …)
        add = tally.append
        early = time.head_times(hot, raw, keys)
        keyed, stamps, LINE = not time.unique, time.stamps, ev.LINE  # noqa: N806
        last: float | None = None
        low, high = math.inf, -math.inf
        end = len(raw) - 1
        for i, at in zip(hot, early, strict=True):
            if i < start:
                continue
            info = known(keys[i])
            stats = clusters.get(info.cluster) if info is not None else None  # type: ignore[arg-type]
            if stats is None or info is None:  # (pruned while this block was read)
                start = self._event(i, raw, keys, start)
                continue
            stats.events += 1
            first_error = info.level >= ERROR and self.first_error is None
            keep = stats.first is None or first_error or rng() * stats.events < 1
            if not keep and info.kind == LINE and i < end:
                after = known(keys[i + 1])
                if after is not None and after.kind == LINE:
                    if at is None or (keyed and keys[i] not in stamps):
                        at = head_time(keys[i], raw[i])  # (what it learns, learnt)
                    if at is not None:
                        stats.arrivals.add(at)
                        series = stats.series
                        add((stats.cluster_id if series is not None and series.origin == origin
                             else series_later(stats, at, origin),
                             info.level >= ERROR, int(at - origin)))
                        last = at
                        if at < low:
                            low = at
                        if at > high:
                            high = at
                        start = i + 1
                        continue
            if last is not None:
                time.last_at, last = last, None
            start = self._whole_event(i, raw, keys, start, info, stats, keep, first_error)
        time.saw_many(last, low, high)
        time.tally(clusters, tally, origin)
        return start

    def _keep(self, stats: ClusterStats, ex: Exemplar, first_error: bool) -> None:
        if stats.first is None:
            stats.first = ex
        else:
            stats.sample = ex
        if first_error:
            self.first_error, self.first_error_cluster = ex, stats.cluster_id


def _time_above(before: list[str], fallback: float | None) -> float | None:
    """The time of the nearest line above an event whose head has none (else ``fallback``,
    the last time seen)."""
    for text in reversed(before):
        at = parse_time(text)
        if at is not None:
            return at
    return fallback


def _mark_status(block: bytes, keys: list[bytes]) -> None:
    """An access log's 4xx/5xx status joins its line's key."""
    line, pos = 0, 0
    for m in STATUS.finditer(block):
        line += block.count(b"\n", pos, m.start())
        pos = m.start()
        if line < len(keys):
            keys[line] += b" <" + m.group(1) + b"xx>"


def _texts(new: list[bytes], keys: list[bytes], raw: list[bytes], block: bytes,
           max_line: int, whole: str | None) -> list[str]:
    """A line of each new key, decoded (the last of the block's lines with that key).
    When every line is a new key, the whole block is decoded at once (``block``: its
    lines are all shorter than the limit; ``whole``: already decoded, if it was)."""
    if len(new) == len(keys) and block:
        texts = (whole if whole is not None else block.decode("utf-8", "replace")).split("\n")
        texts.pop()
        return [text.rstrip("\r") for text in texts] if b"\r" in block else texts
    sample = dict(zip(keys, raw, strict=True))
    return [decode(sample[key], max_line) for key in new]
