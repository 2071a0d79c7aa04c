"""The usual warning and error events counted in bulk (timeline and series per second)
give the same report as counting them one by one."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from aiagent.engines.logs.analyzer import Analyzer
from aiagent.engines.logs.events import ClusterStats
from aiagent.engines.logs.report import build
from aiagent.engines.logs.source import LogSource
from aiagent.engines.logs.timeaxis import TimeAxis

START = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
TRACE = ["java.lang.IllegalStateException: pool closed",
         "\tat com.shop.Pool.get(Pool.java:41)", "\tat com.shop.Repo.save(Repo.java:{n})",
         "\t... 7 more"]


def mixed_log(seed: int = 5) -> bytes:
    """Info, warnings and errors in log4j form over an hour, a burst of errors in the
    middle, tracebacks under some errors, and a Python traceback alone."""
    rnd = random.Random(seed)
    out: list[str] = []
    t = START
    for n in range(6000):
        t += timedelta(milliseconds=rnd.randint(1, 1200))
        stamp = t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
        burst = 3000 <= n < 3400
        roll = rnd.random()
        if roll < (0.5 if burst else 0.04):
            out.append(f"{stamp} ERROR [pool-{rnd.randint(1, 9)}] c.s.Repo - save failed for "
                       f"order {rnd.randint(1, 10 ** 6)}: connection reset")
            if rnd.random() < 0.05:
                out += [line.format(n=rnd.randint(10, 99)) for line in TRACE]
        elif roll < (0.6 if burst else 0.15):
            out.append(f"{stamp} WARN  [io-{rnd.randint(1, 9)}] c.s.Cache - cache miss for key "
                       f"user:{rnd.randint(1, 10 ** 5)} after {rnd.randint(1, 5)} tries")
        else:
            out.append(f"{stamp} INFO  [http-{rnd.randint(1, 20)}] c.s.Orders - POST "
                       f"/orders/{rnd.randint(1, 10 ** 6)} took {rnd.randint(1, 90)}ms")
        if n == 4500:
            out += ["Traceback (most recent call last):", '  File "/srv/a.py", line 4, in f',
                    "    x = 1 / 0", "ZeroDivisionError: division by zero"]
    return ("\n".join(out) + "\n").encode()


def report(data: bytes, bulk: bool, block: int) -> dict[str, Any]:
    analysis = Analyzer(bulk=bulk)
    for at in range(0, len(data), block):
        analysis.feed(data[at:at + block])
    analysis.finish()
    source = LogSource(stream=None, name="mixed.log", total=len(data))  # type: ignore[arg-type]
    return build(analysis, source)


@pytest.mark.parametrize("block", [4096, 65536, 1 << 20])
def test_bulk_and_one_by_one_give_the_same_report(block: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = mixed_log()
    tallied: list[int] = []
    tally = TimeAxis.tally

    def counted(self: TimeAxis, clusters: dict[int, ClusterStats],
                items: list[tuple[int, bool, int]], origin: float) -> None:
        tallied.append(len(items))
        tally(self, clusters, items, origin)

    monkeypatch.setattr(TimeAxis, "tally", counted)
    bulk = report(data, True, block)
    assert sum(tallied) > 1000  # most events went the bulk way
    one_by_one = report(data, False, block)
    assert json.dumps(bulk, sort_keys=True) == json.dumps(one_by_one, sort_keys=True)
    # what the report is about is there: a burst, levels apart, the traceback as one event
    levels = {c["level"] for c in bulk["clusters"]}
    assert {"error", "warning"} <= levels
    assert bulk["change_points"]
    assert any(len(ex["event"]) > 1 for c in bulk["clusters"] for ex in c["exemplars"])


def unique_log(seed: int, odd_lines: bool) -> bytes:
    """A log of unique lines (a session id on each), in one header format; with
    ``odd_lines``, also a traceback, a line whose "[thread" never closes, a line with no
    message, one with a long one, and an INFO line with a fatal hint."""
    rnd = random.Random(seed)
    out: list[str] = []
    t = START
    for n in range(20000):
        t += timedelta(milliseconds=rnd.randint(1, 300))
        stamp = t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
        level = rnd.choice(["INFO", "INFO", "WARN", "ERROR"])
        session = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12))
        out.append(f"{stamp} {level} [pool-{rnd.randint(1, 9)}] c.s.Repo - save of order "
                   f"{rnd.randint(1, 10 ** 6)} took {rnd.randint(1, 90)}ms session {session}")
        if odd_lines and n == 9000:
            out += [line.format(n=7) for line in TRACE]
            out.append(f"{stamp} ERROR [pool-unclosed c.s.Repo - half a header")
        if odd_lines and n == 5000:  # an INFO line that says the process crashed: fatal
            out.append(f"{stamp} INFO [pool-2] c.s.Repo - worker 3 exited: segmentation fault")
        if odd_lines and n in (14000, 17000):  # no message; a message past the cut
            out.append(f"{stamp} WARN [pool-1] c.s.Repo - " + ("x " * 1500 if n == 17000 else ""))
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("odd_lines", [False, True])
def test_a_block_read_in_one_search_gives_the_same_report(odd_lines: bool,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from aiagent.engines.logs.parse import LineParser

    data = unique_log(9, odd_lines)
    searched: list[bool] = []
    quick_block = LineParser.quick_block

    def counted(self: LineParser, text: str, count: int) -> Any:
        got = quick_block(self, text, count)
        searched.append(got is not None)
        return got

    monkeypatch.setattr(LineParser, "quick_block", counted)
    whole = report(data, True, 1 << 16)
    assert sum(searched) >= 10  # most blocks went the one-search way …
    assert not odd_lines or searched.count(False) >= 4  # … and the odd ones line by line
    monkeypatch.setattr(LineParser, "quick_block", lambda self, text, count: None)
    line_by_line = report(data, True, 1 << 16)
    assert json.dumps(whole, sort_keys=True) == json.dumps(line_by_line, sort_keys=True)
    assert {c["level"] for c in whole["clusters"]} >= \
        ({"fatal", "error", "warning"} if odd_lines else {"error", "warning"})
