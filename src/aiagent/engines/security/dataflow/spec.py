"""Sources, sanitizers and sinks per language, loaded from ``rules/taint/<lang>.yaml``.

A spec file looks like::

    languages: [python]
    sources:            # kind -> access paths; `request.args` taints `request.args.get("x")`
      http: [request.args, request.form, "*.getParameter"]   # `*.m`: any receiver's m
    route_decorators: ["*.route"]   # parameters of these handlers are tainted (kind http);
                                    # Java: parameter annotations (`RequestParam`)
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
    guards:                          # an `if` that checks a value clears it for the function
      - {calls: ["*.startswith"], receiver: true, clears: [path]}
    internal_paths:                  # code that implements the sink is not a sink of itself
      sql: ["*/sqlalchemy/*"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import translate
from functools import cache
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.rulepack import list_packs, read_pack_text
from aiagent.engines.security.yamlio import YAMLError, load_yaml

FOLDER = "taint"
MEMO_CAP = 50_000  # remembered lookups per spec (the cache is cleared when full)


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

    def matches(self, name: str) -> bool:
        return _glob(self.pattern).fullmatch(name) is not None


@cache
def _glob(pattern: str) -> re.Pattern[str]:
    """Compiled on first use: most of a spec's sink patterns never meet a candidate name."""
    return re.compile(translate(pattern))


_HEAD = re.compile(rb"[\w$@]+")
_CHAIN = re.compile(rb"[\w$@]+(?:\.[\w$@]+)*")


@dataclass(frozen=True)
class Sanitizer:
    matcher: re.Pattern[str]
    clears: frozenset[str]


@dataclass(frozen=True)
class Guard:
    matcher: re.Pattern[str]
    receiver: bool
    args: tuple[int, ...]
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
    by_last: dict[str, tuple[Sink, ...]] = field(default_factory=dict)
    guards: tuple[Guard, ...] = ()
    wild: tuple[tuple[str, Sink], ...] = ()  # (literal prefix, sink) for `a.b*` patterns
    any_receiver: bool = False               # some source starts with `*.`
    # a cheap pre-check of a callee before its dotted name is built (see ``maybe_sink``)
    lasts: frozenset[bytes] = frozenset()    # last names of the non-wildcard sink patterns
    wild_prefixes: tuple[bytes, ...] | None = ()  # literal starts of wildcard-last patterns (None: any)
    wild_heads: tuple[bytes, ...] = ()       # their first segments
    html_routes: re.Pattern[str] | None = None  # decorators of handlers returning HTML
    wild_assign: bool = False                # some assignment sink's last name has a wildcard
    # answers of the lookups below, which depend only on their arguments: a tree's names
    # repeat (`os.path.join`, `self.x`), and each lookup tries many patterns
    _memo: dict[tuple[Any, ...], Any] = field(default_factory=dict, compare=False, repr=False)

    def _remember(self, key: tuple[Any, ...], value: Any) -> Any:
        if len(self._memo) >= MEMO_CAP:
            self._memo.clear()
        self._memo[key] = value
        return value

    def maybe_sink(self, last: bytes, text: bytes, aliases: dict[str, str]) -> bool:
        """False only when no sink can match a callee whose last name is ``last`` and whose
        source text is ``text`` (a member chain or a name), after import aliases."""
        if last in self.lasts or self.wild_prefixes is None or self._wild(text):
            return True
        head = _HEAD.match(text)
        target = aliases.get(head.group().decode("utf-8", "replace")) if head else None
        if target is None:
            return False
        resolved = target.encode() + text[head.end():] if head else b""
        return resolved.rsplit(b".", 1)[-1] in self.lasts or self._wild(resolved)

    def _wild(self, text: bytes) -> bool:
        assert self.wild_prefixes is not None
        if not self.wild_prefixes:
            return False
        if _CHAIN.fullmatch(text):  # a plain `a.b.c`: its text is its dotted name
            return text.startswith(self.wild_prefixes)
        return text.startswith(self.wild_heads)

    def sinks_for(self, name: str, raw: str, assign: bool) -> list[Sink]:
        """Sinks whose pattern matches the resolved or the written name."""
        known = self._memo.get(("sinks", name, raw, assign))
        if known is None:
            known = self._remember(("sinks", name, raw, assign),
                                   tuple(self._sinks_for(name, raw, assign)))
        return list(known)

    def _sinks_for(self, name: str, raw: str, assign: bool) -> list[Sink]:
        found: list[Sink] = []
        for candidate in {name, raw}:
            last = candidate.rsplit(".", 1)[-1]
            for sink in self.by_last.get(last, ()):
                if sink.assign == assign and sink not in found and sink.matches(candidate):
                    found.append(sink)
            for prefix, sink in self.wild:
                if (sink.assign == assign and candidate.startswith(prefix)
                        and sink not in found and sink.matches(candidate)):
                    found.append(sink)
        return found

    def sanitizer(self, *names: str) -> frozenset[str] | None:
        key = ("sanitizer", *names)
        if key in self._memo:
            known: frozenset[str] | None = self._memo[key]
            return known
        found = [s.clears for s in self.sanitizers if any(s.matcher.fullmatch(n) for n in names)]
        result = frozenset().union(*found) if found else None
        self._remember(key, result)
        return result

    def source_kinds(self, path: str) -> frozenset[str]:
        """Kinds of the longest declared source that ``path`` starts with (segment-wise)."""
        known: frozenset[str] | None = self._memo.get(("source", path))
        if known is None:
            known = self._remember(("source", path), self._source_kinds(path))
        return known

    def _source_kinds(self, path: str) -> frozenset[str]:
        parts = path.split(".")
        for n in range(len(parts), 0, -1):
            kinds = self.sources.get(".".join(parts[:n]))
            if kinds:
                return kinds
            if n > 1 and self.any_receiver:  # `*.getParameter`: any receiver's method
                kinds = self.sources.get("*." + ".".join(parts[1:n]))
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


def spec_for(language: str) -> TaintSpec | None:
    """``specs().get(language)``, parsing only the file that declares ``language`` when
    each file names its languages on one plain line (an audit of a Python tree need not
    load and compile the other languages' specs); else every file, as ``specs()``."""
    owners = _owners()
    if owners is None:
        return specs().get(language)
    name = owners.get(language)
    return _parse(name) if name is not None else None


# `languages: [a, b]` at the top level, items that YAML reads as plain strings
_LANGUAGES_LINE = re.compile(r"^languages:[ \t]*\[([^\]\n]*)\][ \t]*$", re.M)
_PLAIN_ITEM = re.compile(r"[A-Za-z][\w+-]*")
_NOT_STRINGS = frozenset({"yes", "no", "true", "false", "on", "off", "null"})


@cache
def _owners() -> dict[str, str] | None:
    """Language -> the last spec file declaring it (as in ``specs()``), read from each
    file's text; None when a file's languages cannot be read that simply."""
    out: dict[str, str] = {}
    for name in list_packs(FOLDER):
        text = read_pack_text(name)
        found = _LANGUAGES_LINE.findall(text)
        if len(found) != 1 or text.count("languages") != 1:
            return None
        items = [item.strip() for item in found[0].split(",")]
        if not all(_PLAIN_ITEM.fullmatch(i) and i.lower() not in _NOT_STRINGS for i in items):
            return None
        for lang in items:
            out[lang] = name
    return out


@cache
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
        html_routes=_matcher(list(data.get("html_route_decorators") or [])),
        sanitizers=tuple(Sanitizer(_matcher(list(s["calls"])) or re.compile("$^"),
                                   frozenset(s["clears"]))
                         for s in data.get("sanitizers") or []),
        sinks=sinks,
        internal_paths={cls: m for cls, globs in (data.get("internal_paths") or {}).items()
                        if (m := _matcher(list(globs))) is not None},
        keywords=_keywords(sinks),
        by_last=_by_last(sinks),
        guards=tuple(Guard(_matcher(list(g["calls"])) or re.compile("$^"), bool(g.get("receiver")),
                           tuple(g.get("args") or ()), frozenset(g["clears"]))
                     for g in data.get("guards") or []),
        wild=tuple((_prefix(s.pattern), s) for s in sinks if _wild_last(s.pattern)),
        any_receiver=any(p.startswith("*.") for p in sources),
        lasts=frozenset(s.pattern.rsplit(".", 1)[-1].encode() for s in sinks
                        if not _wild_last(s.pattern)),
        # assignment sinks with a wildcard last name (`*session`) skip the pre-check instead
        wild_prefixes=(wild := _wild_prefixes(tuple(s for s in sinks if not s.assign))),
        wild_assign=any(s.assign and _wild_last(s.pattern) for s in sinks),
        wild_heads=tuple(sorted({p.split(b".", 1)[0] for p in wild or ()})),
    )


def _wild_prefixes(sinks: tuple[Sink, ...]) -> tuple[bytes, ...] | None:
    """The literal start of every wildcard-last pattern; None when one starts with a
    wildcard (then any name may match)."""
    prefixes = {_prefix(s.pattern).encode() for s in sinks if _wild_last(s.pattern)}
    return None if b"" in prefixes else tuple(sorted(prefixes))


def _wild_last(pattern: str) -> bool:
    return any(ch in pattern.rsplit(".", 1)[-1] for ch in "*?[")


def _prefix(pattern: str) -> str:
    cut = min((pattern.index(ch) for ch in "*?[" if ch in pattern), default=len(pattern))
    return pattern[:cut]


def _by_last(sinks: tuple[Sink, ...]) -> dict[str, tuple[Sink, ...]]:
    table: dict[str, list[Sink]] = {}
    for sink in sinks:
        if not _wild_last(sink.pattern):
            table.setdefault(sink.pattern.rsplit(".", 1)[-1], []).append(sink)
    return {k: tuple(v) for k, v in table.items()}


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
    )


def _keywords(sinks: tuple[Sink, ...]) -> tuple[bytes, ...] | None:
    words = set()
    for sink in sinks:
        word = sink.pattern.rsplit(".", 1)[-1]
        if _wild_last(sink.pattern):
            word = _prefix(sink.pattern).split(".")[0]
            if not word:  # `*session`: the literal text after the last wildcard
                word = re.split(r"[*?\[\]]", sink.pattern)[-1].split(".")[-1]
            if not word:
                return None
        words.add(word.encode())
    return tuple(sorted(words, key=lambda w: (len(w), w)))  # short, common words first: `any` stops sooner
