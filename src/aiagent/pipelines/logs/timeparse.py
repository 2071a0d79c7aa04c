"""Timestamps found in log lines, as seconds since the epoch (UTC; a time without a
zone is taken as UTC). The common shapes: ISO 8601, ``2024/05/01 12:00:00`` (Go, nginx),
``01/May/2024:12:00:00 +0000`` (access logs), ``May  1 12:00:00`` (syslog, this year) and
epoch seconds or milliseconds."""

from __future__ import annotations

import calendar
import functools
import re
import time

MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_ISO = re.compile(
    r"(\d{4})[-/](\d\d)[-/](\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?\s?(Z|[+-]\d\d:?\d\d)?")
_CLF = re.compile(r"(\d\d)/([A-Z][a-z]{2})/(\d{4}):(\d\d):(\d\d):(\d\d)(?: ([+-]\d\d\d\d))?")
_SYSLOG = re.compile(r"([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)")
_EPOCH = re.compile(r"^\d{9,13}(?:\.\d+)?$")


def parse_time(text: str) -> float | None:
    """The first timestamp in ``text`` (a line or a field), or None."""
    if _EPOCH.match(text):
        value = float(text)
        return value / 1000 if value > 1e11 else value
    if m := _ISO.search(text):
        y, mo, d, h, mi, s, frac, zone = m.groups()
        whole = _seconds(y, mo, d, h, mi, s, zone)
    elif m := _CLF.search(text):
        d, mon, y, h, mi, s, zone = m.groups()
        frac, whole = None, _seconds(y, MONTHS.get(mon, 0), d, h, mi, s, zone)
    elif m := _SYSLOG.search(text):
        mon, d, h, mi, s = m.groups()
        year = time.gmtime().tm_year
        frac, whole = None, _seconds(year, MONTHS.get(mon, 0), d, h, mi, s, None)
    else:
        return None
    if whole is None or not frac:
        return None if whole is None else float(whole)
    return float(whole + int(frac) / 10 ** len(frac))


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
