"""Untrusted text made safe to write to a terminal.

A model's answer and a tool's output may hold control sequences: OSC 52 (write the
clipboard), OSC 0/2 (the window title), OSC 8 (hidden links), CSI (move the cursor, clear
the screen), DCS, C1 controls, or a lone BEL / backspace / carriage return that hides what
came before. None of them reaches the terminal raw. Every control character except tab and
newline is shown as a visible escape (``^[``, ``^G``, ``^H``, ``\\x9b``), which leaves the
rest of a sequence as inert text; a lone carriage return becomes a newline (progress
output stays readable, and nothing can be written over). Front-ends apply this to what
they did not write themselves and keep their own styling.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

_C1 = range(0x80, 0xA0)


def _table() -> dict[int, str]:
    table = {code: "^" + chr(code + 0x40) for code in range(0x20) if code not in (0x09, 0x0A)}
    table[0x0D] = "\n"
    table[0x7F] = "^?"
    table.update({code: f"\\x{code:02x}" for code in _C1})
    return table


_TABLE = _table()
_JSON_C1 = {code: f"\\u{code:04x}" for code in _C1}


def neutralise(text: str) -> str:
    """``text`` with every control character made visible (tabs and newlines kept)."""
    if text.isprintable():  # the common case: nothing to do (tabs and newlines are not printable)
        return text
    return text.replace("\r\n", "\n").translate(_TABLE)


def json_for_terminal(data: Any, **kwargs: Any) -> str:
    """``json.dumps`` whose output is safe on a terminal and decodes to the exact text:
    JSON escapes C0 controls already; C1 controls are escaped as ``\\u0080``–``\\u009f`` too."""
    return json.dumps(data, ensure_ascii=False, **kwargs).translate(_JSON_C1)


def neutralise_value(value: Any) -> Any:
    """Strings anywhere inside lists and dicts (tool call arguments) neutralised."""
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, dict):
        return {neutralise_value(k): neutralise_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [neutralise_value(v) for v in value]
    return value


_FIELDS = ("text", "chunk", "content", "diff", "path", "message", "reason", "name", "what",
           "summary", "answer")


def safe_event(event: Any) -> Any:
    """A copy of an agent event with its text fields neutralised, for display only
    (the original, exact event is left for whoever else reads it)."""
    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        return event
    changes: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(event, name, None)
        if isinstance(value, str) and not value.isprintable():
            changes[name] = neutralise(value)
    args = getattr(event, "args", None)
    if isinstance(args, dict):
        changes["args"] = neutralise_value(args)
    return dataclasses.replace(event, **changes) if changes else event


def subagent_line(event: Any, limit: int = 300) -> str | None:
    """One display line for a :class:`~aiagent.contracts.events.SubagentEvent` (what a
    ``task`` child is doing, prefixed with its label), or None for events not shown (text
    deltas, usage). Neutralised for the terminal."""
    inner, labels, model = event, [], ""
    while getattr(inner, "kind", "") == "subagent":  # a child's child: both labels
        labels.append(neutralise(inner.label))
        model = inner.model
        inner = inner.event
    inner = safe_event(inner)
    text = _subagent_text(inner, model)
    if text is None:
        return None
    flat = " ".join(text.split())
    flat = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return f"[{' › '.join(labels)}] {flat}"


def _priced(model: str, usage: Any) -> str:
    """`` · ~$0.0123`` for ``usage`` at ``model``'s price, "" when it is unknown."""
    from aiagent.infra.config.pricing import cost

    dollars = cost(model, usage) if model else None
    return "" if dollars is None else f" · ~${dollars:.4f}"


def _subagent_text(inner: Any, model: str = "") -> str | None:
    kind = getattr(inner, "kind", "")
    if kind == "tool_call":
        return f"→ {inner.name} {json_for_terminal(inner.args)}"
    if kind == "tool_result":
        return f"{'✗' if inner.is_error else '←'} {inner.name}: {inner.content}"
    if kind == "error":
        return f"error: {inner.message}"
    if kind == "retry":
        return f"… {inner.reason}; retrying (attempt {inner.attempt})"
    if kind == "done":
        usage = inner.usage
        return (f"done: {inner.stop_reason}, {inner.turns} turn(s), tokens in/out "
                f"{usage.input_tokens}/{usage.output_tokens}{_priced(model, usage)}")
    return None
