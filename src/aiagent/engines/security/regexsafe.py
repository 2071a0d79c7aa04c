"""Regexes that cannot hang a scan.

Patterns compile with RE2 (linear time) when they can. A pattern RE2 rejects
(lookaround, backreferences) falls back to the ``regex`` module, whose matching is given
a time limit per file. Wall time depends on machine load, so a pattern that times out is
never dropped silently: the scanner reports the skipped rule (an audit warning, see
:func:`timeout_note`) and the engine does not cache that file's result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import re2

DEFAULT_TIMEOUT_S = 5.0

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


class RegexTimeout(Exception):
    """A fallback (non-RE2) pattern exceeded its time limit on one input."""


class RegexCompileError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Match:
    start: int
    end: int
    groups: tuple[bytes | None, ...]
    group_spans: tuple[tuple[int, int], ...]

    def group(self, index: int) -> bytes | None:
        return self.groups[index]

    def span(self, index: int) -> tuple[int, int]:
        return self.group_spans[index]


class SafePattern:
    """A compiled bytes pattern with a linear-time engine or a time-guarded one.

    ``lazy``: compile on first use instead of now (built-in rules, checked by the test
    suite: an audit compiles only the patterns of the languages it meets)."""

    def __init__(self, pattern: str, timeout_s: float = DEFAULT_TIMEOUT_S,
                 lazy: bool = False) -> None:
        self.pattern = pattern
        self.timeout_s = timeout_s
        self._compiled = False
        self._re2: Any = None
        self._regex: Any = None
        if not lazy:
            self.prepare()

    def prepare(self) -> None:
        """Compile now (raises RegexCompileError for an invalid pattern)."""
        if self._compiled:
            return
        raw = self.pattern.encode("utf-8")
        try:
            self._re2 = re2.compile(raw, _OPTIONS)
        except re2.error:
            import regex  # only for patterns RE2 cannot take (its import is not free)

            try:
                self._regex = regex.compile(raw)
            except regex.error as exc:
                raise RegexCompileError(f"invalid regex {self.pattern!r}: {exc}") from None
        self._compiled = True

    @property
    def linear(self) -> bool:
        self.prepare()
        return self._re2 is not None

    def finditer(self, data: bytes) -> Iterator[Match]:
        self.prepare()
        if self._re2 is not None:
            for m in self._re2.finditer(data):
                yield _wrap(m)
            return
        try:
            for m in self._regex.finditer(data, timeout=self.timeout_s):
                yield _wrap(m)
        except TimeoutError:
            raise RegexTimeout(self.pattern) from None

    def search(self, data: bytes) -> bool:
        self.prepare()
        if self._re2 is not None:
            return self._re2.search(data) is not None
        return next(iter(self.finditer(data)), None) is not None


def _wrap(m: Any) -> Match:
    n = len(m.groups()) + 1
    groups = tuple(m.group(i) for i in range(n))
    spans = tuple(m.span(i) for i in range(n))
    return Match(m.start(), m.end(), groups, spans)


def timeout_note(scanner: str, rule_id: str, pattern: SafePattern) -> str:
    return (f"{scanner}: rule {rule_id} skipped on this file: its regex ran past the "
            f"{pattern.timeout_s:g} s limit")


def compile_pattern(pattern: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> SafePattern:
    return SafePattern(pattern, timeout_s)


class PatternSet:
    """Which of several patterns occur somewhere in a text, in one pass over it (an RE2
    set) instead of one pass per pattern: the pre-check "does this file mention any of the
    rule's keywords" costs one scan of the file for all rules.

    ``literals``: the patterns are byte strings matched as they are (Latin-1: any byte
    stands for itself); otherwise they are RE2 patterns. A pattern the set cannot take, or
    a search the set's engine gives up on (its memory budget), is answered the slow way, by
    ``fallback`` (index -> present in data), so the answer never depends on the engine.
    """

    def __init__(self, patterns: list[bytes], fallback: Callable[[int, bytes], bool],
                 literals: bool = False) -> None:
        self._count = len(patterns)
        self._fallback = fallback
        self._set: Any = None
        options = re2.Options()
        options.log_errors = False
        if literals:
            options.encoding = re2._re2.RE2.Options.Encoding.LATIN1
        engine = re2.Set.SearchSet(options)
        try:
            engine.Add(b"")  # always matches: an empty answer means the engine gave up
            for pattern in patterns:
                engine.Add(re2.escape(pattern) if literals else pattern)
            engine.Compile()
        except re2.error:
            return
        self._set = engine

    def present(self, data: bytes) -> frozenset[int]:
        """Indexes of the patterns found in ``data``."""
        found = self._set.Match(data) if self._set is not None else None
        if not found:
            return frozenset(i for i in range(self._count) if self._fallback(i, data))
        return frozenset(i - 1 for i in found if i)
