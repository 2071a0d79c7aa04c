"""One log line → its format, timestamp, level and message.

Formats: JSON lines, logfmt, syslog, nginx/apache access (combined and common), the
nginx error log, and plain lines with an optional leading timestamp. The patterns are in
``data/patterns.toml``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aiagent.engines.logs.rules import Patterns, patterns
from aiagent.engines.logs.timeparse import parse_time

LEVELS = ("unknown", "debug", "info", "warning", "error", "fatal")
RANK = {name: i for i, name in enumerate(LEVELS)}
ERROR = RANK["error"]
WARNING = RANK["warning"]


@dataclass(frozen=True, slots=True)
class Parsed:
    format: str
    ts: float | None
    level: str
    message: str


def parse_line(line: str) -> Parsed:
    rules = patterns()
    stripped = line.lstrip()
    if stripped.startswith("{"):
        record = _json(stripped)
        if record is not None:
            return _structured("json", record, rules.json_fields, line, rules)
    if "=" in line:
        pairs = _logfmt(line, rules)
        if pairs is not None:
            return _structured("logfmt", pairs, rules.logfmt_fields, line, rules)
    return _text(line, rules)


def _json(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _logfmt(line: str, rules: Patterns) -> dict[str, str] | None:
    """``key=value key="quoted value"``: at least two pairs, the first at the start."""
    pairs = list(rules.logfmt_pair.finditer(line))
    if len(pairs) < 2 or pairs[0].start() != 0:
        return None
    return {m["key"]: _unquote(m["value"]) for m in pairs}


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value


def _field(record: dict[str, Any], names: list[str]) -> str | None:
    for name in names:
        value = record.get(name)
        if value is None and "." in name:  # "log.level" as {"log": {"level": …}}
            head, _, tail = name.partition(".")
            inner = record.get(head)
            value = inner.get(tail) if isinstance(inner, dict) else None
        if value is not None and not isinstance(value, dict | list):
            return str(value)
    return None


def _structured(fmt: str, record: dict[str, Any], fields: dict[str, list[str]], line: str,
                rules: Patterns) -> Parsed:
    ts_text = _field(record, fields["ts"])
    message = _field(record, fields["msg"]) or line.strip()
    level = level_of(_field(record, fields["level"]), message, rules)
    if level != "unknown":  # the level leads: levels never share a template
        message = f"{level.upper()} {message}"
    return Parsed(fmt, parse_time(ts_text) if ts_text else None, level, message)


def _text(line: str, rules: Patterns) -> Parsed:
    for fmt, rx in rules.formats.items():
        m = rx.match(line)
        if m is None:
            continue
        groups = m.groupdict()
        ts_text = groups.get("ts")
        ts = parse_time(ts_text) if ts_text else None
        if fmt == "access":
            status = int(groups["status"])
            level = "error" if status >= 500 else "warning" if status >= 400 else "info"
            method, _, rest = (groups.get("request") or "").partition(" ")
            path = rest.split(" ")[0].split("?")[0]
            return Parsed(fmt, ts, level, f"{level.upper()} HTTP {status} {method} {path}".strip())
        message = groups.get("msg") or line
        return Parsed(fmt, ts, level_of(groups.get("level"), message, rules), message.strip())
    return Parsed("plain", None, level_of(None, line, rules), line.strip())


def level_of(field: str | None, message: str, rules: Patterns) -> str:
    """The level a field names, else the first level word in the message; a panic, an
    OOM kill or an uncaught exception makes it at least an error (fatal for the first two)."""
    level = named_level(field, rules) if field else None
    if level is None:
        m = rules.level_word.search(message[:400])
        level = named_level(m.group(1), rules) if m else None
    if rules.fatal_hint.search(message):
        return "fatal"
    if level is None:
        return "error" if rules.error_hint.search(message) else "unknown"
    return level


def named_level(word: str, rules: Patterns) -> str | None:
    word = word.strip().upper()
    if word in rules.level_names:
        return rules.level_names[word]
    if word.isdigit():  # bunyan/pino numbers: 60 fatal, 50 error, 40 warn, 30 info
        n = int(word)
        return "fatal" if n >= 60 else "error" if n >= 50 else "warning" if n >= 40 \
            else "info" if n >= 30 else "debug"
    return {"E": "error", "W": "warning", "I": "info", "D": "debug", "F": "fatal",
            "ERR": "error", "CRITICAL": "fatal"}.get(word)
