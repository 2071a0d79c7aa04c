"""The abstract value the taint engine tracks for every expression.

A value is *constant* (``dynamic`` false) when only literals and constants make it; it is
*tainted* when data from a declared source may reach it (``sources`` names the source
kinds, e.g. ``http``, ``json``, ``cli``); it is *built* when a string was assembled
(concatenation, interpolation, ``%``, ``.format``, ``.join``) with at least one dynamic
part. ``cleared`` lists the sink classes a sanitizer made it safe for, ``text`` keeps the
constant string fragments (capped) so a sink can ask "does this look like SQL?", and
``literal`` says every part is a known string literal (hard-coded keys).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

TEXT_CAP = 400
ALL = "all"
# a number made from a predictable generator is still predictable: a conversion
# (`int(...)`, `Math.floor(...)`) that makes a value safe for every sink keeps these
KEPT_BY_CONVERSION = frozenset({"weakrand"})


@dataclass(frozen=True, slots=True)
class Value:
    dynamic: bool = True
    sources: frozenset[str] = frozenset()
    built: bool = False
    cleared: frozenset[str] = frozenset()
    text: str = ""
    literal: bool = False

    @property
    def tainted(self) -> bool:
        return bool(self.sources)

    def safe_for(self, sink_class: str) -> bool:
        return ALL in self.cleared or sink_class in self.cleared

    def clear(self, classes: Iterable[str]) -> Value:
        classes = frozenset(classes)
        if ALL in classes:
            kept = self.sources & KEPT_BY_CONVERSION
            return Value(sources=kept) if kept else CONSTANT
        return Value(self.dynamic, self.sources, self.built, self.cleared | classes,
                     self.text, self.literal)


CONSTANT = Value(dynamic=False)
UNKNOWN = Value()


def literal(text: str) -> Value:
    return Value(dynamic=False, text=text[:TEXT_CAP], literal=True)


def source(kinds: Iterable[str]) -> Value:
    return Value(sources=frozenset(kinds))


def join(values: Iterable[Value]) -> Value:
    """Either of the values (a branch, a container, a call's result): no new string built."""
    return _merge(list(values), built=False)


def build(values: Iterable[Value]) -> Value:
    """A string made by putting the values together."""
    return _merge(list(values), built=True)


def _merge(parts: list[Value], built: bool) -> Value:
    if not parts:
        return CONSTANT
    dynamic_parts = [p for p in parts if p.dynamic]
    carriers = [p for p in dynamic_parts if p.sources] or dynamic_parts
    cleared: frozenset[str] | None = None
    for part in carriers:
        cleared = part.cleared if cleared is None else cleared & part.cleared
    return Value(
        dynamic=bool(dynamic_parts),
        sources=frozenset().union(*(p.sources for p in parts)),
        built=(built and bool(dynamic_parts)) or any(p.built for p in parts),
        cleared=cleared or frozenset(),
        text="".join(p.text for p in parts)[:TEXT_CAP],
        literal=all(p.literal for p in parts),
    )
