"""PatternSet (one pass for many pre-checks) answers exactly what one search per pattern
answers: overlapping keywords, case-insensitive signals, bytes that are not UTF-8, and
patterns the one-pass engine cannot take."""

from __future__ import annotations

import random

from aiagent.engines.security.regexsafe import PatternSet, SafePattern

WORDS = [b"key", b"apikey", b"pass", b"password", b"://", b"sk-ant-", b"\xe9t\xe9", b"k"]


def _one_by_one_literals(words: list[bytes], data: bytes) -> frozenset[int]:
    return frozenset(i for i, w in enumerate(words) if w in data)


def test_literal_keywords_match_substring_search() -> None:
    rng = random.Random(7)
    alphabet = [b"key", b"api", b"pass", b"word", b":/", b"/", b"sk-", b"ant-", b"\xe9", b"t",
                b" ", b"\x00", b"\xff", b"x"]
    texts = [b"", b"apikey=password", b"no match here", b"\xe9t\xe9 http://x"] + [
        b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(400)]
    slow: list[int] = []

    def one(i: int, data: bytes) -> bool:
        slow.append(i)
        return WORDS[i] in data

    words = PatternSet(WORDS, one, literals=True)
    for text in texts:
        assert words.present(text) == _one_by_one_literals(WORDS, text), text
    assert not slow  # one pass answered all, bytes that are not UTF-8 included


def test_regex_signals_match_one_search_each() -> None:
    signals = [SafePattern(p) for p in (r"(?i)\b(auth\w*|login)\b", r"(?i)\.execute\(",
                                        r"(?i)select\s.+\sfrom", r"\bopen\(")]
    together = PatternSet([s.pattern.encode() for s in signals],
                          lambda i, d: signals[i].search(d))
    for text in (b"", b"def login(): pass", b"AUTHOR = 1", b"cur.EXECUTE(q)",
                 b"SELECT a\nFROM t", b"SELECT a FROM t; open(f)", b"reopen(x)", b"\xffauth\xfe"):
        expected = frozenset(i for i, s in enumerate(signals) if s.search(text))
        assert together.present(text) == expected, text


def test_pattern_the_set_cannot_take_falls_back() -> None:
    """A lookahead (not RE2) makes the set unusable: every answer comes from the fallback,
    and is still right, beside a pattern RE2 takes."""
    patterns = [SafePattern(r"foo(?=bar)"), SafePattern(r"baz")]
    assert not patterns[0].linear
    calls: list[int] = []

    def one(i: int, data: bytes) -> bool:
        calls.append(i)
        return patterns[i].search(data)

    together = PatternSet([p.pattern.encode() for p in patterns], one)
    assert together.present(b"foobar baz") == {0, 1}
    assert together.present(b"foobaz") == {1}
    assert together.present(b"nothing") == frozenset()
    assert calls  # answered one by one
