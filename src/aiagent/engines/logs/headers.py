"""The header of a log's lines, learnt from its first lines: which format of
``data/headers.toml`` the log is written in, so that only the message is mined and the
header fields (time, level, component, pid, host, …) become columns.

    headers = Headers()
    headers.learn(first_lines)          # picks the format most of them match
    fields, message = headers.split(line)   # None when the line is not in that format
"""

from __future__ import annotations

import calendar
import functools
import re
import time
import tomllib
from dataclasses import dataclass
from typing import Any

from aiagent.engines.logs.rules import data_text
from aiagent.engines.logs.timeparse import MONTHS

TIME_GROUPS = frozenset(("Y", "y", "mo", "mon", "d", "H", "M", "S", "f", "z", "epoch"))


@dataclass(frozen=True, slots=True)
class Format:
    name: str
    rx: re.Pattern[str]
    columns: tuple[str, ...]  # the groups that become columns (time parts and msg aside)

    @property
    def quick(self) -> re.Pattern[str]:
        """The same lines matched alike, only msg and level captured (compiled once, when
        a log in this format is read: start-up compiles only ``rx``)."""
        return _quick(self.rx)

    @property
    def block(self) -> re.Pattern[str]:
        """:attr:`quick` for many lines at once (``re.MULTILINE``)."""
        return _block(self.rx)


@functools.cache
def catalogue() -> tuple[tuple[Format, ...], dict[str, Any]]:
    """The formats of ``data/headers.toml``, compiled, and the detector's settings."""
    raw = tomllib.loads(data_text("headers.toml"))
    macros: dict[str, str] = raw["macros"]
    formats = []
    for name, spec in raw["formats"].items():
        text = spec["rx"]
        for macro, value in macros.items():
            text = text.replace("{" + macro + "}", value)
        rx = re.compile(text)
        columns = tuple(g for g in rx.groupindex if g not in TIME_GROUPS and g != "msg")
        formats.append(Format(name, rx, columns))
    return tuple(formats), raw["detect"]


_OTHER_GROUP = re.compile(r"\(\?P<(?!msg>|level>)\w+>")


@functools.cache
def _quick(rx: re.Pattern[str]) -> re.Pattern[str]:
    """``rx`` with its groups but msg and level not capturing: it matches the same lines
    at the same places (a capture changes nothing but what is kept), a quarter faster."""
    if "(?P=" in rx.pattern:  # a back-reference needs its group
        return rx
    quick = re.compile(_OTHER_GROUP.sub("(?:", rx.pattern), rx.flags)
    return quick if set(quick.groupindex) == set(rx.groupindex) & {"msg", "level"} else rx


@functools.cache
def _block(rx: re.Pattern[str]) -> re.Pattern[str]:
    quick = _quick(rx)
    return re.compile(quick.pattern, quick.flags | re.MULTILINE)


class Headers:
    """The format of one log, learnt once from its first lines."""

    def __init__(self) -> None:
        self.format: Format | None = None
        self.learned = False
        self._year = time.gmtime().tm_year

    def learn(self, lines: list[str]) -> Format | None:
        formats, cfg = catalogue()
        sample = [line for line in lines if line.strip()][:int(cfg["sample_lines"])]
        self.learned = True
        if not sample:
            return None
        best, best_hits = None, 0
        for fmt in formats:
            hits = sum(1 for line in sample if fmt.rx.match(line))
            if hits > best_hits:
                best, best_hits = fmt, hits
        if best is not None and best_hits >= float(cfg["min_share"]) * len(sample):
            self.format = best
        return self.format

    def split(self, line: str) -> tuple[dict[str, str], str, float | None] | None:
        """The header fields, the message and the time (None: no time in the header) of a
        line in the learnt format; None when the line is not in it."""
        fmt = self.format
        if fmt is None:
            return None
        m = fmt.rx.match(line)
        if m is None:
            return None
        groups = m.groupdict()
        fields = {name: groups[name] for name in fmt.columns if groups[name] is not None}
        return fields, groups["msg"], stamp(groups, self._year)


def stamp(groups: dict[str, str | None], this_year: int) -> float | None:
    """Seconds since the epoch (UTC) from a header's time groups."""
    epoch = groups.get("epoch")
    if epoch is not None and groups.get("Y") is None:
        return float(epoch)
    day, hour = groups.get("d"), groups.get("H")
    if day is None:
        return None
    year = groups.get("Y")
    short = groups.get("y")
    y = int(year) if year else (2000 + int(short) if short else this_year)
    mon = groups.get("mon")
    mo = MONTHS.get(mon, 0) if mon else int(groups.get("mo") or 0)
    whole: float | None = _seconds(y, mo, int(day), int(hour or 0), int(groups.get("M") or 0),
                                  int(groups.get("S") or 0), groups.get("z"))
    frac = groups.get("f")
    if whole is None or not frac:
        return whole
    return whole + int(frac) / 10.0 ** len(frac)


@functools.lru_cache(maxsize=4096)  # lines in the same second share the work
def _seconds(y: int, mo: int, d: int, h: int, mi: int, s: int, zone: str | None) -> float | None:
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s < 61):
        return None
    value = float(calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)))
    if zone and zone != "Z":
        sign = -1 if zone[0] == "+" else 1
        digits = zone[1:].replace(":", "")
        value += sign * (int(digits[:2]) * 3600 + int(digits[2:4]) * 60)
    return value
