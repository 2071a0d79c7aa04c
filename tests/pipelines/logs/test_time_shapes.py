"""The per-shape timestamp shortcut reads the same times as a full parse."""

from __future__ import annotations

from aiagent.engines.logs.timeparse import find_time, parse_time, time_at

LINES = [
    "2024-05-01 12:00:00,668 INFO  [http-11] POST /orders/1 took 11ms",
    "2024-05-01T12:00:07.123456Z level=error msg=x",
    '10.1.2.3 - - [01/May/2024:12:00:00 +0200] "GET / HTTP/1.1" 502 1 "-" "-"',
    "May  1 12:00:00 node-3 worker[5377]: WARN batch 1 slow: 1085ms",
]


def test_time_at_matches_a_full_parse_for_lines_of_the_same_shape() -> None:
    seen: dict[str, float | None] = {}
    for line in LINES:
        at, where = find_time(line)
        assert where is not None and at == parse_time(line)
        later = line.replace("12:00:0", "13:41:5").replace(" 1 ", " 9 ")
        assert time_at(later, where, seen) == parse_time(later) != at
        assert time_at(later, where, seen) == parse_time(later)  # from ``seen``


def test_a_line_that_differs_where_the_stamp_was_is_parsed_in_full() -> None:
    _, where = find_time(LINES[0])
    assert where is not None
    other = "x " + LINES[1]
    assert time_at(other, where, {}) == parse_time(other) is not None
    assert time_at("no time here", where, {}) is None


def test_the_long_line_check_finds_every_line_over_the_limit() -> None:
    from aiagent.engines.logs.analyzer import _long_line

    limit = 100
    short = b"x" * 40 + b"\n"
    for size in (limit + 1, limit + 7, 3 * limit):
        for before in (0, 1, 33, 57):
            block = short * before + b"y" * size + b"\n" + short * 3
            assert _long_line(block, limit), (size, before)
    assert not _long_line(short * 500, limit)  # short lines: the exact check is skipped


def test_a_long_line_inside_a_block_is_cut_at_the_limit() -> None:
    from aiagent.engines.logs.analyzer import Analyzer

    analysis = Analyzer()
    long_error = b"2024-05-01 12:00:00 ERROR " + b"A" * (analysis.max_line * 2) + b"\n"
    block = b"2024-05-01 12:00:00 INFO ok\n" * 5 + long_error + b"2024-05-01 12:00:01 INFO ok\n"
    analysis.feed(block)
    analysis.finish()
    assert analysis.lines == 7
    assert analysis.levels and max(map(len, analysis._keys)) == analysis.max_line  # cut there


def test_time_in_reads_the_same_times_as_a_full_parse() -> None:
    """The whole-second shortcut of ``time_in`` (no regular expression once a stamp's text
    but its fraction was read) gives the full parse's value on every line, zones,
    fractions of other lengths and stamps that only look alike included."""
    from aiagent.engines.logs.timeparse import time_in

    shapes = ["2024-05-01 12:00:{s:02d},{ms:03d} INFO  [http-11] POST /orders/1",
              "2024-05-01T12:00:{s:02d}.{ms:03d}+02:00 level=error msg=x",
              "2024-05-01T12:00:{s:02d}.{ms:03d}Z level=error msg=x",
              "2024-05-01 12:00:{s:02d}.{ms:03d} -0500 ERROR zoned",
              "2024-05-01 12:00:{s:02d}.{ms:03d} - WARN  [main] - zookeeper",
              "17/06/09 20:11:{s:02d}.{ms:03d} INFO spark",
              "x 2024-05-01 12:00:{s:02d},{ms:03d}5 longer fraction",
              "2024-05-01T12:00:{s:02d}.{ms:03d}456 micro",
              "2024-05-01 12:00:{s:02d}.{ms} a fraction of varying width"]
    seen: dict[str, float | None] = {}
    seconds: dict[bytes, float] = {}
    read = 0
    for shape in shapes:
        _, where = find_time(shape.format(s=0, ms=0))
        assert where is not None
        for s, ms in [(0, 0), (0, 1), (1, 999), (1, 5), (59, 10), (7, 123)]:
            line = shape.format(s=s, ms=ms)
            assert time_in(line.encode(), where, seen, seconds) == parse_time(line), line
        read += len(seconds)
        # a line of another shape read with this one's place: the full parse decides
        other = "2024-05-01 12:00:01+0100 " + shape
        assert time_in(other.encode(), where, seen, seconds) == time_at(other, where, seen)
    assert read  # the shortcut was taken (the unzoned shapes)


def test_times_in_reads_many_lines_as_time_in_does() -> None:
    from aiagent.engines.logs.timeparse import time_in, times_in

    shapes = ["2024-05-01 12:00:{s:02d},{ms:03d} WARN x", "[2024-05-01T12:00:{s:02d}.{ms:02d}] y",
              "2024-05-01 12:00:{s:02d}.{ms:03d}+01:00 zoned", "é 2024-05-01 12:00:{s:02d}.{ms} z"]
    got = 0
    for shape in shapes:
        _, where = find_time(shape.format(s=0, ms=5))
        assert where is not None
        lines = [shape.format(s=s, ms=ms).encode() for s in (0, 1, 1, 59) for ms in (0, 5, 99)]
        seconds: dict[bytes, float] = {}
        for line, at in zip(lines, times_in(lines, where, seconds), strict=True):
            assert at is None or at == time_in(line, where, {}, {}) == parse_time(line.decode())
            got += at is not None
    assert got >= 2 * 12  # the two plain shapes, every line
