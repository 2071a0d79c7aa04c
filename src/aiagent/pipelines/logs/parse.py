"""Lines of a log → one structured row each: the header's fields (time, level, component,
…) as the learnt format reads them, and the message's template.

    for row in parse_lines(lines): row.line, row.template_id, row.template, row.level, …

Templates are mined over the whole log first (a template gets its final shape only once
every line of it was seen), so the lines are held as they are read — :func:`parse_stream`
reads a binary stream, keeps one small record per line and gives the rows at the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from aiagent.pipelines.logs.formats import level_of, parse_line
from aiagent.pipelines.logs.headers import Headers
from aiagent.pipelines.logs.miner import TemplateMiner
from aiagent.pipelines.logs.rules import patterns

SAMPLE = 200  # first lines the header format is learnt from


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

    def learn(self, lines: list[str]) -> None:
        self.headers.learn(lines)

    def split(self, line: str) -> Split:
        got = self.headers.split(line)
        if got is not None:
            fields, message, at = got
            level = level_of(fields.get("level"), message, self.rules)
            fmt = self.headers.format.name if self.headers.format else "plain"
            return Split(fmt, fields, message, level, at)
        parsed = parse_line(line)
        return Split(parsed.format, {}, parsed.message, parsed.level, parsed.ts)


def parse_lines(lines: Iterable[str]) -> Iterator[Row]:
    """A row per line, in order; the templates are final (mined over all the lines)."""
    parser, miner = LineParser(), TemplateMiner()
    held: list[tuple[int, Split]] = []
    pending: list[str] = []
    for text in lines:
        if not parser.headers.learned:
            pending.append(text)
            if len(pending) < SAMPLE:
                continue
            _learn_and_mine(parser, miner, pending, held)
            pending = []
            continue
        held.append(_mine(parser, miner, text))
    if pending:
        _learn_and_mine(parser, miner, pending, held)
    for n, (cluster, split) in enumerate(held, 1):
        yield Row(n, cluster, miner.template(cluster) or split.message, split.level,
                  split.timestamp, split.fields, split.format)


def _learn_and_mine(parser: LineParser, miner: TemplateMiner, lines: list[str],
                    held: list[tuple[int, Split]]) -> None:
    parser.learn(lines)
    held.extend(_mine(parser, miner, text) for text in lines)


def _mine(parser: LineParser, miner: TemplateMiner, text: str) -> tuple[int, Split]:
    split = parser.split(text.rstrip("\r\n"))
    return miner.add(split.message, split.level), split


def parse_stream(stream: IO[bytes]) -> Iterator[Row]:
    """:func:`parse_lines` over a binary stream of lines (UTF-8, bad bytes replaced)."""
    return parse_lines(raw.decode("utf-8", "replace") for raw in stream)


