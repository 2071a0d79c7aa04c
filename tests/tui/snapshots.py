"""Golden screens and the checks every rendered screen must pass.

:func:`check_golden` compares a rendered screen with ``golden/NAME.txt`` exactly;
``UPDATE_GOLDEN=1`` writes the files instead (then read the diff before committing).
:func:`assert_fits` checks that no line is wider than the terminal (in cells: wide
characters count two) and that no word of the source text was cut across two lines.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from rich.cells import cell_len

GOLDEN = Path(__file__).with_name("golden")
WORD = re.compile(r"\w[\w'’-]*\w|\w", re.UNICODE)
GUTTER = 10  # room kept for indents, bullets and borders: longer words may fold


def check_golden(name: str, screen: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(screen, encoding="utf-8")
        return
    assert path.is_file(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert screen == expected, f"{name} differs from {path.name}:\n{screen}"


def words(text: str) -> list[str]:
    return WORD.findall(text)


def assert_fits(screen: str, width: int, sources: Iterable[str]) -> None:
    """Every line within ``width`` cells; every word of ``sources`` that fits a line
    whole shows on one line as many times as the sources hold it."""
    lines = screen.splitlines()
    for number, line in enumerate(lines, 1):
        assert cell_len(line.rstrip()) <= width, \
            f"line {number} is {cell_len(line.rstrip())} cells wide (> {width}): {line!r}"
    shown = Counter(word for line in lines for word in words(line))
    wanted = Counter(word for text in sources for word in words(text)
                     if cell_len(word) <= width - GUTTER)
    for word, count in wanted.items():
        assert shown[word] >= count, \
            f"{word!r} is cut across lines (shown whole {shown[word]}× of {count}):\n{screen}"
