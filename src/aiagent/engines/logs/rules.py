"""The pipeline's data files (``data/*.toml``), loaded once: limits, thresholds, patterns."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from itertools import combinations
from typing import Any


def data_text(name: str) -> str:
    return resources.files(__package__).joinpath(f"data/{name}").read_text(encoding="utf-8")


@functools.cache
def limits() -> dict[str, Any]:
    """``data/analysis.toml``: read sizes, mining settings, report sizes, severity rules."""
    return tomllib.loads(data_text("analysis.toml"))


@dataclass(frozen=True, slots=True)
class Hint:
    """Patterns of which any may be found in a line: those written with a leading ``^``
    are matched at its start only, the others searched for (two regular expressions, so
    that the search is not tried at every place for the anchored ones)."""

    start: re.Pattern[str] | None
    anywhere: re.Pattern[str] | None
    literals: tuple[str, ...] | None  # text each pattern starts with (None: one does not)

    @classmethod
    def of(cls, alternatives: list[str]) -> Hint:
        start = [rx[1:] for rx in alternatives if rx.startswith("^")]
        anywhere = [rx for rx in alternatives if not rx.startswith("^")]
        heads = [_head(rx.removeprefix("^")).strip() for rx in alternatives]
        return cls(re.compile("|".join(f"(?:{rx})" for rx in start)) if start else None,
                   re.compile("|".join(f"(?:{rx})" for rx in anywhere)) if anywhere else None,
                   _fewest(heads) if all(heads) else None)

    def search(self, text: str) -> bool:
        return bool((self.start is not None and self.start.match(text))
                    or (self.anywhere is not None and self.anywhere.search(text)))

    def absent(self, text: str) -> bool:
        """Whether no line of ``text`` (many lines at once) can hold the hint: none of
        the patterns' leading words is in it (``str.find`` speed, no regular expression)."""
        return self.literals is not None and not any(word in text for word in self.literals)

    def absent_bytes(self, data: bytes) -> bool:
        """:meth:`absent` for UTF-8 bytes."""
        return self.literals is not None and \
            not any(word.encode() in data for word in self.literals)


_LITERAL = re.compile(r"[A-Za-z0-9 :_-]*")
SHARED = 6  # characters two heads must share to be looked for as one


def _fewest(heads: list[str]) -> tuple[str, ...]:
    """Texts of which one is in any text that holds a head, as few as may be (each is
    one pass over a block): a head that holds another is absent when that one is, and
    two heads that share a word of ``SHARED`` characters or more (``Killed`` of
    ``OOMKilled`` and ``Killed process``) are absent when that word is."""
    words = list(dict.fromkeys(heads))
    merged = True
    while merged:
        words = [h for h in words if not any(o != h and o in h for o in words)]
        merged = False
        for a, b in combinations(words, 2):
            common = _longest_common(a, b)
            if len(common) >= SHARED:
                words = [w for w in words if w not in (a, b)] + [common]
                merged = True
                break
    return tuple(words)


def _longest_common(a: str, b: str) -> str:
    # (difflib's find_longest_match would do; it costs the log analysis' start-up 4 ms)
    best = ""
    for i in range(len(a)):
        for j in range(i + len(best) + 1, len(a) + 1):
            if a[i:j] not in b:
                break
            best = a[i:j]
    return best


def _head(rx: str) -> str:
    """The plain text every match of ``rx`` starts with ("" when unsure)."""
    if "|" in rx:
        return ""
    head = _LITERAL.match(rx).group()  # type: ignore[union-attr]
    if rx[len(head):len(head) + 1] in ("?", "*", "{"):  # the last one is optional
        head = head[:-1]
    return head


@dataclass(frozen=True, slots=True)
class Patterns:
    formats: dict[str, re.Pattern[str]]
    json_fields: dict[str, list[str]]
    logfmt_pair: re.Pattern[str]
    logfmt_fields: dict[str, list[str]]
    level_word: re.Pattern[str]
    level_names: dict[str, str]  # "ERR" -> "error"
    error_hint: Hint
    fatal_hint: Hint
    continuation: re.Pattern[str]
    after_frame: re.Pattern[str]
    line_kind: re.Pattern[str]  # either, in one match: which, by ``lastgroup``
    event_max_lines: int
    event_max_chars: int
    variables: re.Pattern[str]  # parts of a token that are variables
    inner_number: re.Pattern[str]


@functools.cache
def patterns() -> Patterns:
    """``data/patterns.toml`` compiled."""
    raw = tomllib.loads(data_text("patterns.toml"))
    levels = raw["levels"]
    names = {word: level for level, words in levels["names"].items() for word in words}
    fields = ("ts", "level", "msg")
    return Patterns(
        formats={name: re.compile(rx) for name, rx in raw["formats"].items()},
        json_fields={k: raw["json"][k] for k in fields},
        logfmt_pair=re.compile(raw["logfmt"]["pair"]),
        logfmt_fields={k: raw["logfmt"][k] for k in fields},
        level_word=re.compile(levels["word"]),
        level_names=names,
        error_hint=Hint.of(levels["error_hint"]),
        fatal_hint=Hint.of(levels["fatal_hint"]),
        continuation=re.compile(raw["events"]["continuation"]),
        after_frame=re.compile(raw["events"]["after_frame"]),
        line_kind=re.compile(f"(?P<continuation>{raw['events']['continuation']})"
                             f"|(?P<after_frame>{raw['events']['after_frame']})"),
        event_max_lines=int(raw["events"]["max_lines"]),
        event_max_chars=int(raw["events"]["max_chars"]),
        variables=re.compile("|".join(f"(?:{rx})" for name, rx in raw["variables"].items()
                                     if name != "inner_number")),
        inner_number=re.compile(raw["variables"]["inner_number"]),
    )
