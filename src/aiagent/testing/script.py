"""The script a :class:`~aiagent.testing.FakeLLM` replays: one :class:`Turn` per request.

A script file is JSON: a list of turn objects (or ``{"turns": [...]}``) whose keys are the
fields of :class:`Turn`; tool calls are ``{"name": ..., "arguments": {...} or "raw text",
"id": ...}``, usage is ``[input, output]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class ToolCall:
    """A tool call the fake model makes. A ``str`` for ``arguments`` is sent as is
    (to test arguments that are not JSON)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def raw_arguments(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(slots=True)
class Turn:
    """What the fake model answers to one request.

    text / tool_calls: the content. status: answer with this HTTP error instead (a JSON
    error body in the endpoint's format, with ``error_message`` and a ``Retry-After``
    header from ``retry_after``). cut_after: send this many stream events, then drop the
    connection. malformed: put one unreadable event mid-stream. chunk_delay: seconds
    between events. stall: stop sending for this many seconds mid-stream, then go on.
    usage: (input, output) tokens; cache: (read, write) cached input tokens.
    stop_reason: end_turn, tool_use, max_tokens... (default: tool_use when there are
    tool calls, else end_turn). text_chunks: how many pieces the text is sent in.
    usage None: the answer reports no token usage at all. gzip: send the stream
    gzip-compressed (``Content-Encoding: gzip``).

    fault: a hostile or broken server, generated as it is sent (never held in memory),
    each bounded by ``fault_bytes`` / ``fault_seconds`` so it ends by itself:
    ``giant_line`` (one line of ``fault_bytes`` without a newline), ``gzip_bomb``
    (``Content-Encoding: gzip``, a few MB that inflate to ``fault_bytes``),
    ``keepalive_forever`` (comments / blank lines only), ``endless_tokens`` (text deltas
    without an end, ``fault_bytes`` of them at most).
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    status: int | None = None
    retry_after: float | None = None
    error_message: str | None = None
    cut_after: int | None = None
    malformed: bool = False
    chunk_delay: float = 0.0
    stall: float | None = None
    usage: tuple[int, int] | None = (10, 5)
    cache: tuple[int, int] = (0, 0)
    stop_reason: str | None = None
    text_chunks: int = 3
    gzip: bool = False
    fault: str | None = None
    fault_bytes: int = 1 << 30
    fault_seconds: float = 120.0

    @property
    def stop(self) -> str:
        return self.stop_reason or ("tool_use" if self.tool_calls else "end_turn")

    def text_pieces(self) -> list[str]:
        return split(self.text, self.text_chunks)


EXHAUSTED = Turn(text="FakeLLM: script exhausted")
FAULTS = ("giant_line", "gzip_bomb", "keepalive_forever", "endless_tokens")


def split(text: str, pieces: int) -> list[str]:
    """``text`` in ``pieces`` nearly equal, non-empty parts (none when it is empty)."""
    if not text:
        return []
    count = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


# ---- script files --------------------------------------------------------------------

_TURN_FIELDS = {f.name for f in fields(Turn)}
_CALL_FIELDS = {"name", "arguments", "id"}
_NUMBER = (int, float)
_SCALARS: dict[str, type | tuple[type, ...]] = {
    "text": str,
    "status": int,
    "retry_after": _NUMBER,
    "error_message": str,
    "cut_after": int,
    "malformed": bool,
    "gzip": bool,
    "chunk_delay": _NUMBER,
    "stall": _NUMBER,
    "stop_reason": str,
    "text_chunks": int,
    "fault": str,
    "fault_bytes": int,
    "fault_seconds": _NUMBER,
}


class ScriptError(ValueError):
    """A script file that cannot be used; the message names the file and the field."""


def load_script(path: str | Path) -> list[Turn]:
    """Read a JSON script file."""
    where = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScriptError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ScriptError(f"{where}: not valid JSON: {exc}") from None
    return parse_script(data, where)


def parse_script(data: object, where: str = "script") -> list[Turn]:
    if isinstance(data, dict) and "turns" in data:
        data = data["turns"]
    if not isinstance(data, list):
        raise ScriptError(f"{where}: expected a list of turns")
    return [_turn(item, f"{where}: turn {i + 1}") for i, item in enumerate(data)]


def _turn(item: object, where: str) -> Turn:
    if isinstance(item, str):
        return Turn(text=item)
    if not isinstance(item, dict):
        raise ScriptError(f"{where}: expected an object")
    unknown = sorted(set(item) - _TURN_FIELDS)
    if unknown:
        raise ScriptError(f"{where}: unknown field {unknown[0]!r}")
    for name, kind in _SCALARS.items():
        value = item.get(name)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool)):
            raise ScriptError(f"{where}: {name!r} has the wrong type ({type(value).__name__})")
    values = dict(item)
    if values.get("fault") is not None and values["fault"] not in FAULTS:
        raise ScriptError(f"{where}: 'fault' must be one of {', '.join(FAULTS)}")
    calls = values.get("tool_calls", [])
    if not isinstance(calls, list):
        raise ScriptError(f"{where}: 'tool_calls' must be a list")
    values["tool_calls"] = [_call(c, f"{where}: tool_calls[{i}]") for i, c in enumerate(calls)]
    for name in ("usage", "cache"):
        if name in values and not (name == "usage" and values[name] is None):
            values[name] = _pair(values[name], f"{where}: {name!r}")
    return Turn(**values)


def _call(item: object, where: str) -> ToolCall:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ScriptError(f"{where}: expected an object with a 'name'")
    unknown = sorted(set(item) - _CALL_FIELDS)
    if unknown:
        raise ScriptError(f"{where}: unknown field {unknown[0]!r}")
    arguments = item.get("arguments", {})
    if not isinstance(arguments, dict | str):
        raise ScriptError(f"{where}: 'arguments' must be an object or a string")
    return ToolCall(item["name"], arguments, item.get("id"))


def _pair(value: object, where: str) -> tuple[int, int]:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value[0], value[1])
    raise ScriptError(f"{where} must be a list of two integers")
