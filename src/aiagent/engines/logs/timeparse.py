"""Timestamps found in log lines, as seconds since the epoch (UTC; a time without a
zone is taken as UTC). The common shapes: ISO 8601, ``2024/05/01 12:00:00`` (Go, nginx),
``01/May/2024:12:00:00 +0000`` (access logs), ``May  1 12:00:00`` (syslog, this year),
``17/06/09 20:11:09`` (Spark, yy/MM/dd), ``081109 203615`` at the start of a line (HDFS,
yyMMdd HHmmss) and epoch seconds or milliseconds."""

from __future__ import annotations

import calendar
import functools
import operator
import re
import time
from itertools import compress, repeat
from operator import itemgetter

MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_ISO = re.compile(
    r"(\d{4})[-/](\d\d)[-/](\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?\s?(Z|[+-]\d\d:?\d\d)?")
_CLF = re.compile(r"(\d\d)/([A-Z][a-z]{2})/(\d{4}):(\d\d):(\d\d):(\d\d)(?: ([+-]\d\d\d\d))?")
_SYSLOG = re.compile(r"([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)")
_EPOCH = re.compile(r"^\d{9,13}(?:\.\d+)?$")
_YYMMDD = re.compile(r"(?<![\d/])(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")  # Spark
_COMPACT = re.compile(r"^(\d\d)(\d\d)(\d\d) (\d\d)(\d\d)(\d\d) ")  # HDFS: 081109 203615


_SHAPES = (_ISO, _CLF, _SYSLOG, _YYMMDD, _COMPACT)  # tried in this order; the first found wins
_FRACTION = {0: 7, 3: 7}  # the shapes with a fraction of a second: its group
_ZONED = {0: 8}  # … and with a zone: its group
Where = tuple[int, int, int, int]
"""Where a line's stamp was found: the index of its shape in ``_SHAPES``, its offset, and
the span of its fraction's digits (-1, -1: none)."""


def parse_time(text: str) -> float | None:
    """The first timestamp in ``text`` (a line or a field), or None."""
    return find_time(text)[0]


def find_time(text: str) -> tuple[float | None, Where | None]:
    """:func:`parse_time`, and where the stamp was (None: no stamp or an epoch number),
    so that lines of the same shape can be read with :func:`time_at`."""
    if _EPOCH.match(text):
        value = float(text)
        return (value / 1000 if value > 1e11 else value), None
    for shape, rx in enumerate(_SHAPES):
        if m := rx.search(text):
            group = _FRACTION.get(shape)
            fs, fe = m.span(group) if group else (-1, -1)
            return _value(shape, m), (shape, m.start(), fs, fe)
    return None, None


def time_at(text: str, where: Where, seen: dict[str, float | None]) -> float | None:
    """The stamp of a line shaped like the one ``where`` was found in: one anchored
    match at that offset (a full search when the line differs there). ``seen`` maps
    stamps read before to their value (events in the same second share the work)."""
    shape, start = where[:2]
    m = _SHAPES[shape].match(text, start)
    if m is None:
        return parse_time(text)
    stamp = m.group()
    value = seen.get(stamp, -1.0)
    if value == -1.0:
        value = seen[stamp] = _value(shape, m)
    return value


def time_in(line: bytes, where: Where, seen: dict[str, float | None],
            seconds: dict[bytes, float]) -> float | None:
    """:func:`time_at` on the head of a line (its first 200 characters) still in bytes,
    most often with no regular expression: a stamp whose text but the digits of its
    fraction of a second was read before (``seconds``, keyed by that text and the three
    characters after it) is that many whole seconds plus the fraction."""
    _, start, fs, fe = where
    if fe > 0:
        whole = seconds.get(line[start - 1 if start else 0:fs] + line[fe:fe + 3])
        if whole is not None and (not start or line[:start].isascii()):
            fraction = line[fs:fe]
            part = _FRACTIONS.get(fraction)  # (the digits of the usual fractions, read)
            if part is not None:
                return whole + part
            if fraction.isdigit():
                return whole + int(fraction) / 10.0 ** (fe - fs)
    head = line[:800].decode("utf-8", "replace")[:200].rstrip("\r")
    if fe > 0 and fe + 3 < 200 and line[:fe + 3].isascii():
        _learn_seconds(line, head, where, seconds)
    return time_at(head, where, seen)


def times_in(lines: list[bytes], where: Where, seconds: dict[bytes, float]
             ) -> list[float | None]:
    """The shortcut of :func:`time_in` for many lines at once (at C speed, ``map``): their
    times, None where it does not apply (:func:`time_in` then reads the line)."""
    _, start, fs, fe = where
    if fe <= 0 or not lines:
        return [None] * len(lines)
    stamps = list(map(bytes.__add__, map(itemgetter(slice(start - 1 if start else 0, fs)), lines),
                      map(itemgetter(slice(fe, fe + 3)), lines)))
    wholes = list(map(seconds.get, stamps))
    if None in wholes:  # seconds not met yet: each learnt from one of its lines
        unknown = list(map(operator.is_, wholes, repeat(None)))
        for line in dict(zip(compress(stamps, unknown), compress(lines, unknown),
                             strict=True)).values():
            if fe + 3 < 200 and line[:fe + 3].isascii():
                _learn_seconds(line, line[:800].decode("utf-8", "replace")[:200].rstrip("\r"),
                               where, seconds)
        wholes = list(map(seconds.get, stamps))
    parts = map(_FRACTIONS.get, map(itemgetter(slice(fs, fe)), lines))
    times = [None if whole is None or part is None else whole + part
             for whole, part in zip(wholes, parts, strict=True)]
    if start:  # (the bytes before the stamp are characters: the same offsets)
        for n in compress(range(len(lines)), map(operator.not_, map(bytes.isascii, map(
                itemgetter(slice(0, start)), lines)))):
            times[n] = None
    return times


_FRACTIONS: dict[bytes, float] = {f"{n:0{width}d}".encode(): n / 10 ** width
              for width in (1, 2, 3) for n in range(10 ** width)}
_ZONE_START = re.compile(rb"[+-](?:\d|$)|\r")


def _learn_seconds(line: bytes, head: str, where: Where, seconds: dict[bytes, float]) -> None:
    """Remember the whole seconds of the stamp at ``where`` by its text but the fraction's
    digits, when that text alone decides them: the stamp is there, its fraction spans
    the same characters, it has no zone and nothing after the fraction may start one."""
    shape, start, fs, fe = where
    m = _SHAPES[shape].match(head, start)
    after = line[fe:fe + 3]
    if m is None or m.span(_FRACTION[shape]) != (fs, fe) or _ZONE_START.search(after):
        return
    whole, _ = _parts(shape, m)
    if whole is not None and (shape not in _ZONED or m.group(_ZONED[shape]) is None):
        if len(seconds) >= 4096:
            seconds.clear()
        seconds[line[start - 1 if start else 0:fs] + after] = whole


def _value(shape: int, m: re.Match[str]) -> float | None:
    whole, frac = _parts(shape, m)
    if whole is None or not frac:
        return None if whole is None else float(whole)
    return float(whole + int(frac) / 10 ** len(frac))


def _parts(shape: int, m: re.Match[str]) -> tuple[float | None, str | None]:
    """The whole seconds of a stamp, and its fraction's digits."""
    if shape == 0:
        y, mo, d, h, mi, s, frac, zone = m.groups()
        whole = _seconds(y, mo, d, h, mi, s, zone)
    elif shape == 1:
        d, mon, y, h, mi, s, zone = m.groups()
        frac, whole = None, _seconds(y, MONTHS.get(mon, 0), d, h, mi, s, zone)
    elif shape == 2:
        mon, d, h, mi, s = m.groups()
        frac, whole = None, _seconds(_this_year(), MONTHS.get(mon, 0), d, h, mi, s, None)
    else:  # two-digit years: 17/06/09 20:11:09 (Spark), 081109 203615 (HDFS)
        y, mo, d, h, mi, s, *rest = m.groups()
        frac = rest[0] if rest else None
        whole = _seconds(2000 + int(y), mo, d, h, mi, s, None)
    return whole, frac


def _this_year() -> int:
    return time.gmtime().tm_year


@functools.lru_cache(maxsize=4096)  # events in the same second share the work
def _seconds(y: str | int, mo: str | int, d: str | int, h: str, mi: str, s: str,
             zone: str | None) -> float | None:
    y, mo, d, hh, mm, ss = int(y), int(mo), int(d), int(h), int(mi), int(s)
    if not (1 <= mo <= 12 and 1 <= d <= 31 and hh < 24 and mm < 60 and ss < 61):
        return None
    value = float(calendar.timegm((y, mo, d, hh, mm, ss, 0, 0, 0)))
    if zone and zone != "Z":
        sign = -1 if zone[0] == "+" else 1
        digits = zone[1:].replace(":", "")
        value += sign * (int(digits[:2]) * 3600 + int(digits[2:4]) * 60)
    return value


def iso(seconds: float | None) -> str | None:
    """``2024-05-01T12:00:00Z`` (milliseconds when there are any)."""
    if seconds is None:
        return None
    whole = int(seconds // 1)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    millis = round((seconds - whole) * 1000)
    return f"{text}.{millis:03d}Z" if millis and millis < 1000 else f"{text}Z"
