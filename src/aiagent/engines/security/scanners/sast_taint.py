"""Taint rules: which dataflow sink hits (``aiagent.engines.security.dataflow``) are findings.

A rule names sink classes and what must reach them (``requires``). Code that implements
a sink is not a sink of itself: a hit is dropped in the spec's ``internal_paths`` for its
class, and, unless tainted data reaches it, in a file that defines a function of the
sink's own name (a driver's ``execute`` calling its cursor's ``execute``).
"""

from __future__ import annotations

from typing import Any

from aiagent.engines.security.dataflow import (
    SinkHit,
    Value,
    analyze,
    query_source,
    supported,
)
from aiagent.engines.security.dataflow.spec import spec_for
from aiagent.engines.security.scanners.sast_rules import SastRule


def taint_matches(rules: list[SastRule], language: str, rel: str, root: Any, data: bytes,
                  captures: dict[str, list[Any]] | None = None
                  ) -> list[tuple[SastRule, Any, frozenset[str], Any]]:
    """(rule, node, input kinds, sink node) for every hit a rule accepts; most severe rule
    first per node and CWE. The input kinds are the taint sources that reach the sink
    (``http``, ``cli``…; empty for a value only built at run time). The sink node is the
    sink inside a local helper that the call ``node`` reaches, else None. ``captures``:
    the nodes of :func:`taint_query` already queried by the caller."""
    if not rules or not supported(language):
        return []
    hits, defined = analyze(language, root, data, captures)
    spec = spec_for(language)
    assert spec is not None, language
    internal = spec.internal_paths
    out: list[tuple[SastRule, Any, frozenset[str], Any]] = []
    seen: set[tuple[int, int, str]] = set()
    for hit in hits:
        cls = hit.sink.sink_class
        in_internal = cls in internal and internal[cls].fullmatch("/" + rel) is not None
        for rule in rules:  # sorted most severe first
            if cls not in rule.sinks or not accepts(rule, hit):
                continue
            if in_internal or (not hit.value.tainted and _implements(hit, defined)):
                continue
            key = (hit.node.start_byte, hit.node.end_byte, rule.cwe)
            if key in seen:
                continue
            seen.add(key)
            out.append((rule, hit.node, hit.value.sources - NOT_INPUT, hit.via))
    # a helper's sink that is a finding of its own is not reported again at each call
    out = [f for f in out if f[3] is None
           or (f[3].start_byte, f[3].end_byte, f[0].cwe) not in seen]
    return _most_severe_per_line(out)


def _most_severe_per_line(found: list[tuple[SastRule, Any, frozenset[str], Any]]
                          ) -> list[tuple[SastRule, Any, frozenset[str], Any]]:
    """A sink call inside another of the same CWE is one finding (`eval(compile(x))`): the
    most severe rule's, else the outer call's. Separate calls on a line stay separate."""
    dropped: set[int] = set()
    for i, (rule, node, *_) in enumerate(found):
        for j, (other, outer, *_) in enumerate(found):
            if i == j or j in dropped or rule.cwe != other.cwe or not _within(node, outer):
                continue
            if other.severity.rank >= rule.severity.rank:
                dropped.add(i)
            else:
                dropped.add(j)
            break
    return [f for i, f in enumerate(found) if i not in dropped]


def _within(inner: Any, outer: Any) -> bool:
    return (outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
            and (outer.start_byte, outer.end_byte) != (inner.start_byte, inner.end_byte))


def taint_query(language: str) -> str:
    """The query patterns the taint analysis of ``language`` needs ("" if none), to be
    joined into the caller's one query pass over each file."""
    return query_source(language) if supported(language) else ""


# Source kinds that are not input: only a rule naming them in ``sources`` asks for them.
NOT_INPUT = frozenset({"weakrand", "tar_archive", "archive_entry"})


def accepts(rule: SastRule, hit: SinkHit) -> bool:
    value, sink = hit.value, hit.sink
    if value.sources & NOT_INPUT and not set(rule.sources or ()) & NOT_INPUT:
        value = Value(value.dynamic, value.sources - NOT_INPUT, value.built, value.cleared,
                      value.text, value.literal)
    if rule.requires == "call":
        return True
    if value.safe_for(sink.sink_class):
        return False
    if sink.text is not None and not sink.text.search(value.text):
        return False
    if rule.requires == "literal":
        return value.literal and not value.dynamic and _text_ok(rule, value)
    if rule.requires == "dynamic":
        return value.dynamic
    if rule.sources and not set(rule.sources) & value.sources:
        return False
    if value.tainted:
        return True
    if rule.requires != "built" or not value.built:
        return False
    return _text_ok(rule, value)


def _text_ok(rule: SastRule, value: Value) -> bool:
    return rule.text is None or rule.text.search(value.text.encode("utf-8", "replace"))


def _implements(hit: SinkHit, defined: frozenset[str]) -> bool:
    method = hit.name.rsplit(".", 1)[-1]
    return "." in hit.name and method in defined
