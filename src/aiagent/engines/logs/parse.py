"""Lines of a log → one structured row each: the header's fields (time, level, component,
…) as the learnt format reads them, and the message's template.

    for row in parse_lines(lines): row.line, row.template_id, row.template, row.level, …

Templates are mined over the whole log first (a template gets its final shape only once
every line of it was seen): :class:`Mined` reads the log once, keeping a template id per
line, and gives the rows on a second reading.
"""

from __future__ import annotations

import gc
import itertools
import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import IO

from aiagent.engines.logs.formats import level_of, named_level, parse_line
from aiagent.engines.logs.headers import Headers
from aiagent.engines.logs.miner import DIGITS, TemplateMiner
from aiagent.engines.logs.rules import patterns

SAMPLE = 200  # first lines the header format is learnt from
MAX_MESSAGE = 2000  # characters of a message mined (a longer one is cut)
BATCH = 4096  # lines looked at together for what none of them holds


@dataclass(slots=True)
class Row:
    line: int  # 1-based
    template_id: int
    template: str
    level: str  # a name of LEVELS ("unknown" when none was found)
    timestamp: float | None
    fields: dict[str, str] = field(default_factory=dict)
    format: str = "plain"


@dataclass(slots=True)
class Split:
    """One line read: its header fields, message, level and time."""

    format: str
    fields: dict[str, str]
    message: str
    level: str
    timestamp: float | None


class LineParser:
    """Splits lines into header and message once the format is learnt."""

    def __init__(self) -> None:
        self.headers = Headers()
        self.rules = patterns()
        self._has_level = False
        self._named: dict[str, str | None] = {}  # a level field: the level it names
        self.no_fatal = False  # set while the lines read have no fatal hint (Hint.absent)
        self.misses = 0  # lines whose level was not known from a line of their shape
        self._levels: dict[tuple[str | None, bytes], str] = {}  # level_of, by shape

    def learn(self, lines: list[str]) -> None:
        self.headers.learn(lines)
        fmt = self.headers.format
        self._has_level = fmt is not None and "level" in fmt.rx.groupindex

    def headed(self, line: str) -> re.Match[str] | None:
        """The learnt header format's match of ``line`` (None: not a line of it)."""
        fmt = self.headers.format
        return fmt.quick.match(line) if fmt is not None else None

    def quick(self, line: str) -> tuple[str, str, bytes | None, str]:
        """The message, level, shape (its digits all 0: :meth:`TemplateMiner.add`; None
        when the line is not in the header format) and format name of a line: what mining
        needs, no other field, no time."""
        return self.quick_headed(line, self.headed(line))

    def quick_headed(self, line: str, m: re.Match[str] | None
                     ) -> tuple[str, str, bytes | None, str]:
        """:meth:`quick`, the line's :meth:`headed` known."""
        fmt = self.headers.format
        if m is None or fmt is None:
            split = self.split(line)
            return split.message, split.level, None, split.format
        if self._has_level:
            message, field = m.group("msg", "level")
        else:
            message, field = m.group("msg"), None
        shape = message.encode("utf-8", "surrogatepass").translate(DIGITS)
        if self.no_fatal and field is not None:  # level_of: the field's level, no hint
            named = self._named.get(field)
            if named is not None:
                return message, named, shape, fmt.name
        key = (field, shape)
        level = self._levels.get(key)
        if level is None:
            self.misses += 1
            if len(self._levels) >= 4096:
                self._levels.clear()
            named = self._named.get(field, "") if field else None
            if named == "" and field:
                if len(self._named) >= 256:
                    self._named.clear()
                named = self._named[field] = named_level(field, self.rules)
            if named is None:  # (level_of, where the field names no level)
                level = level_of(field, message, self.rules)
            else:  # (level_of, the usual case)
                level = "fatal" if self.rules.fatal_hint.search(message) else named
            self._levels[key] = level
        return message, level, shape, fmt.name

    def quick_many(self, lines: list[str], formats: list[str] | None = None,
                   found: list[re.Match[str] | None] | None = None
                   ) -> tuple[list[str], list[str], list[bytes | None]]:
        """:meth:`quick` for many lines: their messages, levels and shapes (and format
        names, appended to ``formats``). One loop; a line in the learnt format whose level
        field names a level is taken at once while no line has a fatal hint. ``found``:
        :meth:`headed` of each line, if known."""
        fmt = self.headers.format
        messages: list[str] = []
        levels: list[str] = []
        shapes: list[bytes | None] = []
        if found is None:
            found = list(map(fmt.quick.match, lines)) if fmt is not None else [None] * len(lines)
        fast = fmt is not None and self._has_level and self.no_fatal
        named, quick = self._named, self.quick_headed
        fmt_name = fmt.name if fmt is not None else ""
        for line, m in zip(lines, found, strict=True):
            if fast and m is not None:
                message, field = m.group("msg", "level")
                known = named.get(field)
                if known is not None:  # (the usual case: the level field's level)
                    messages.append(message)
                    levels.append(known)
                    shapes.append(message.encode("utf-8", "surrogatepass").translate(DIGITS))
                    if formats is not None:
                        formats.append(fmt_name)
                    continue
            message, level, shape, name = quick(line, m)
            messages.append(message)
            levels.append(level)
            shapes.append(shape)
            if formats is not None:
                formats.append(name)
        return messages, levels, shapes

    def quick_block(self, text: str, count: int
                    ) -> tuple[list[str], list[str], list[bytes | None]] | None:
        """:meth:`quick_many` for the ``count`` lines of ``text`` (each ending with a
        newline, no carriage return) when each is in the learnt format with a level field
        that names a level, a message of 1 to ``MAX_MESSAGE`` characters, and no message
        has a fatal hint: one search over the text, no match object per line. None otherwise
        (or when a match ran past its line's end: fewer matches than lines), for
        :meth:`quick_many` to do it line by line."""
        fmt = self.headers.format
        if fmt is None or not self._has_level:
            return None
        found = fmt.block.findall(text)
        if len(found) != count:
            return None
        groups = fmt.block.groupindex
        levels = list(map(self._named.get, map(itemgetter(groups["level"] - 1), found)))
        if None in levels:
            return None
        messages = list(map(itemgetter(groups["msg"] - 1), found))
        if not all(messages) or max(map(len, messages)) > MAX_MESSAGE:
            return None  # (an empty or a long message: mined as the line or cut, one by one)
        if not self.rules.fatal_hint.absent("\n".join(messages)):
            return None  # (a message with a fatal hint: its level is not the field's)
        shapes: list[bytes | None] = [message.encode("utf-8", "surrogatepass").translate(DIGITS)
                                      for message in messages]
        return messages, levels, shapes  # type: ignore[return-value]

    def split(self, line: str) -> Split:
        got = self.headers.split(line)
        if got is not None:
            fields, message, at = got
            level = level_of(fields.get("level"), message, self.rules)
            fmt = self.headers.format.name if self.headers.format else "plain"
            return Split(fmt, fields, message, level, at)
        parsed = parse_line(line)
        return Split(parsed.format, {}, parsed.message, parsed.level, parsed.ts)


def parse_lines(lines: list[str]) -> Iterator[Row]:
    """A row per line, in order; the templates are final (mined over all the lines)."""
    parser, miner = LineParser(), TemplateMiner()
    parser.learn([line.rstrip("\r\n") for line in lines[:SAMPLE]])
    ids = [miner.add(s.message, s.level) for s in map(parser.split, lines)]
    for n, (line, cluster) in enumerate(zip(lines, ids, strict=True), 1):
        split = parser.split(line.rstrip("\r\n"))
        yield _row(n, miner.resolve(cluster), split, miner)


def _row(n: int, cluster: int, split: Split, miner: TemplateMiner) -> Row:
    return Row(n, cluster, miner.template(cluster) or split.message, split.level,
               split.timestamp, split.fields, split.format)


@dataclass(slots=True)
class TemplateStats:
    template_id: int
    level: str
    count: int = 0
    first_line: int = 0
    last_line: int = 0
    first_at: float | None = None
    last_at: float | None = None
    first_text: str | None = None  # the lines, until their times are read
    last_text: str | None = None


class Mined:
    """Pass one over a log: the header format, the templates, a template id per line
    (4 bytes a line) and, per template, its count and first and last sighting."""

    def __init__(self) -> None:
        self.parser, self.miner = LineParser(), TemplateMiner()
        self.ids = array("l")
        self.stats: dict[int, TemplateStats] = {}
        self._last: dict[int, str] = {}  # an event's last line (counts: at the end)

    def feed(self, lines: Iterable[str]) -> None:
        """Read the lines of a log (their line ends are dropped)."""
        it = iter(lines)
        self.feed_blocks(iter(lambda: list(islice(it, BATCH)), []))

    def feed_blocks(self, blocks: Iterable[list[str]]) -> None:
        """:meth:`feed` for lines that come in lists (:func:`decoded_blocks`)."""
        blocks = iter(blocks)
        pending: list[str] = []
        for block in blocks:
            pending.extend(block)
            if len(pending) >= SAMPLE:
                break
        self._learn([text.rstrip("\r\n") for text in pending[:SAMPLE]])
        with gc_paused():
            self._feed(itertools.chain([pending[SAMPLE:]], blocks))
        self._tally()
        self._times()
        self._fold()

    def _feed(self, blocks: Iterable[list[str]]) -> None:
        parser, hint = self.parser, self.parser.rules.fatal_hint
        ids, last, stats = self.ids, self._last, self.stats
        misses = BATCH  # lines whose level was not known from a line of their shape
        for block in blocks:
            for at in range(0, len(block), BATCH):
                batch = [text.rstrip("\r\n") for text in block[at:at + BATCH]]
                # lines with no fatal hint: their level known at once
                parser.no_fatal = (parser.no_fatal or misses > BATCH // 8) \
                    and hint.absent("\n".join(batch))
                misses = parser.misses
                messages, levels, shapes = parser.quick_many(batch)
                events = self.miner.add_many(messages, levels, shapes)
                start = len(ids)
                ids.extend(events)
                for n, event in enumerate(events):
                    if event not in stats:
                        self._first(event, levels[n], batch[n], start + n + 1)
                last.update(zip(events, batch, strict=True))
                misses = parser.misses - misses
        parser.no_fatal = False

    def _first(self, event: int, level: str, text: str, line: int = 0) -> None:
        stats = self.stats[event] = TemplateStats(event, level, first_line=line or len(self.ids))
        stats.first_text = text

    def _tally(self) -> None:
        """Each event's count and last line, from the ids (at C speed but the last few)."""
        counts = Counter(self.ids)
        missing = set(self.stats)
        for stats in self.stats.values():
            stats.count = counts[stats.template_id]
            stats.last_text = self._last[stats.template_id]
        ids = self.ids
        for n in range(len(ids) - 1, -1, -1):
            if ids[n] in missing:
                self.stats[ids[n]].last_line = n + 1
                missing.discard(ids[n])
                if not missing:
                    break
        self._last.clear()

    def _fold(self) -> None:
        """Events the miner merged since their lines were counted: one entry each."""
        for event in [e for e in self.stats if self.miner.resolve(e) != e]:
            gone = self.stats.pop(event)
            into = self.miner.resolve(event)
            stats = self.stats.get(into)
            if stats is None:
                gone.template_id = into
                self.stats[into] = gone
                continue
            stats.count += gone.count
            stats.first_line = min(stats.first_line, gone.first_line)
            stats.last_line = max(stats.last_line, gone.last_line)
            stats.first_at = _least(stats.first_at, gone.first_at, min)
            stats.last_at = _least(stats.last_at, gone.last_at, max)

    def _learn(self, lines: list[str]) -> None:
        self.parser.learn(lines)
        for text in lines:
            self._add(text)

    def _add(self, text: str) -> None:
        message, level, shape, _ = self.parser.quick(text)
        event = self.miner.add(message, level, shape)
        self.ids.append(event)
        if event not in self._last:
            self._first(event, level, text)
        self._last[event] = text

    def _times(self) -> None:
        """The times of each template's first and last lines (read once, at the end)."""
        for stats in self.stats.values():
            if stats.first_text is not None:
                stats.first_at = self.parser.split(stats.first_text).timestamp
            if stats.last_text is not None:
                stats.last_at = self.parser.split(stats.last_text).timestamp
            stats.first_text = stats.last_text = None

    def rows(self, lines: Iterable[str]) -> Iterator[Row]:
        """Pass two over the same lines: a row each, with its final template."""
        templates: dict[int, str | None] = {}
        for n, (text, event) in enumerate(zip(lines, self.ids, strict=False), 1):
            cluster = self.miner.resolve(event)
            split = self.parser.split(text.rstrip("\r\n"))
            template = templates.get(cluster)
            if template is None:
                template = templates[cluster] = self.miner.template(cluster)
            yield Row(n, cluster, template or split.message, split.level, split.timestamp,
                      split.fields, split.format)


def _least(a: float | None, b: float | None, pick: Callable[[float, float], float]
           ) -> float | None:
    return b if a is None else a if b is None else pick(a, b)


def decoded(stream: IO[bytes]) -> Iterator[str]:
    """The lines of a binary stream as text (UTF-8, bad bytes replaced), without their
    line ends."""
    for block in decoded_blocks(stream):
        yield from block


def decoded_blocks(stream: IO[bytes], size: int = 1 << 20) -> Iterator[list[str]]:
    """:func:`decoded`, a list of lines at a time: a block of whole lines read and
    decoded at once."""
    carry = b""
    while data := stream.read(size):
        data = carry + data
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            continue
        carry = data[cut + 1:]
        yield data[:cut].decode("utf-8", "replace").split("\n")
    if carry:
        yield [carry.decode("utf-8", "replace")]


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a loop that makes no cycles (its objects are
    freed as their counts drop): the collector would only walk the young objects again
    and again, a tenth of the mining time on a log of a million lines."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
