"""Sources, sanitizers and sinks per language, loaded from ``rules/taint/<lang>.yaml``.

A spec file looks like::

    languages: [python]
    sources:            # kind -> access paths; `request.args` taints `request.args.get("x")`
      http: [request.args, request.form]
    route_decorators: ["*.route"]   # parameters of these handlers are tainted (kind http)
    sanitizers:
      - calls: [int, float]          # resolved call names (fnmatch patterns)
        clears: [all]                # or sink classes: [command, path]
    sinks:
      sql:
        - call: "*.execute"          # resolved callee; `*.x` is any receiver's method x
          args: [0]                  # positions and/or keyword names that carry the value
          text: "(?i)select"        # optional: the value's constant text must match
          if: "shell\\s*=\\s*True"  # optional: the call's text must match / must not (unless)
        - assign: "*.innerHTML"      # an assignment to this target is the sink
    internal_paths:                  # code that implements the sink is not a sink of itself
      sql: ["*/sqlalchemy/*"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import translate
from functools import cache
from typing import Any

from aiagent.security.errors import SecurityConfigError
from aiagent.security.rulepack import list_packs, read_pack_text
from aiagent.security.yamlio import YAMLError, load_yaml

FOLDER = "taint"


def _matcher(patterns: list[str]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{translate(p)})" for p in patterns))


@dataclass(frozen=True)
class Sink:
    sink_class: str
    pattern: str
    assign: bool
    args: tuple[int | str, ...]
    text: re.Pattern[str] | None
    when: re.Pattern[str] | None
    unless: re.Pattern[str] | None
    matcher: re.Pattern[str] = field(compare=False, repr=False)

    def matches(self, name: str) -> bool:
        return self.matcher.fullmatch(name) is not None


@dataclass(frozen=True)
class Sanitizer:
    matcher: re.Pattern[str]
    clears: frozenset[str]


@dataclass(frozen=True)
class TaintSpec:
    languages: tuple[str, ...]
    sources: dict[str, frozenset[str]]       # access path -> source kinds
    route_decorators: re.Pattern[str] | None
    route_param_skip: frozenset[str]
    sanitizers: tuple[Sanitizer, ...]
    sinks: tuple[Sink, ...]
    internal_paths: dict[str, re.Pattern[str]]
    keywords: tuple[bytes, ...] | None       # a file without any of these has no sink

    def sanitizer(self, name: str) -> frozenset[str] | None:
        found = [s.clears for s in self.sanitizers if s.matcher.fullmatch(name)]
        return frozenset().union(*found) if found else None

    def source_kinds(self, path: str) -> frozenset[str]:
        """Kinds of the longest declared source that ``path`` starts with (segment-wise)."""
        parts = path.split(".")
        for n in range(len(parts), 0, -1):
            kinds = self.sources.get(".".join(parts[:n]))
            if kinds:
                return kinds
        return frozenset()


@cache
def specs() -> dict[str, TaintSpec]:
    """Language -> spec, for every built-in spec file."""
    out: dict[str, TaintSpec] = {}
    for name in list_packs(FOLDER):
        spec = _parse(name)
        for lang in spec.languages:
            out[lang] = spec
    return out


def _parse(name: str) -> TaintSpec:
    try:
        data = load_yaml(read_pack_text(name))
        return _build(data)
    except (YAMLError, KeyError, TypeError, ValueError, re.error) as exc:
        raise SecurityConfigError(f"rules/{name}", "", f"bad taint spec: {exc}") from None


def _build(data: dict[str, Any]) -> TaintSpec:
    sources: dict[str, frozenset[str]] = {}
    for kind, paths in (data.get("sources") or {}).items():
        for path in paths:
            sources[path] = sources.get(path, frozenset()) | {kind}
    sinks = tuple(_sink(cls, raw) for cls, entries in (data.get("sinks") or {}).items()
                  for raw in entries)
    return TaintSpec(
        languages=tuple(data["languages"]),
        sources=sources,
        route_decorators=_matcher(list(data.get("route_decorators") or [])),
        route_param_skip=frozenset(data.get("route_param_skip") or []),
        sanitizers=tuple(Sanitizer(_matcher(list(s["calls"])) or re.compile("$^"),
                                   frozenset(s["clears"]))
                         for s in data.get("sanitizers") or []),
        sinks=sinks,
        internal_paths={cls: m for cls, globs in (data.get("internal_paths") or {}).items()
                        if (m := _matcher(list(globs))) is not None},
        keywords=_keywords(sinks),
    )


def _sink(sink_class: str, raw: dict[str, Any]) -> Sink:
    pattern = str(raw.get("call") or raw.get("assign"))
    args = raw.get("args", [0])
    return Sink(
        sink_class=sink_class,
        pattern=pattern,
        assign="assign" in raw,
        args=tuple(args),
        text=re.compile(raw["text"]) if raw.get("text") else None,
        when=re.compile(raw["if"]) if raw.get("if") else None,
        unless=re.compile(raw["unless"]) if raw.get("unless") else None,
        matcher=re.compile(translate(pattern)),
    )


def _keywords(sinks: tuple[Sink, ...]) -> tuple[bytes, ...] | None:
    words = set()
    for sink in sinks:
        last = sink.pattern.rsplit(".", 1)[-1]
        if any(ch in last for ch in "*?["):
            return None
        words.add(last.encode())
    return tuple(sorted(words))
