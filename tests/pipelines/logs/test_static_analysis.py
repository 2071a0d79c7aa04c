"""The static part on generated logs, through the library: what it finds and where."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from log_scenarios import db_pool_deploy, mixed_formats, oom_loop

from aiagent.engines.logs import formats, rules
from aiagent.engines.logs.source import open_log
from aiagent.engines.logs.static import analyse


def report_of(text: str) -> dict[str, Any]:
    return analyse(open_log(None, io.BufferedReader(io.BytesIO(text.encode()))))


def test_a_deploy_that_breaks_the_db_pool() -> None:
    text = db_pool_deploy()
    report = report_of(text)
    errors = [line for line in text.splitlines() if " ERROR " in line]
    top = report["clusters"][0]
    assert top["level"] == "error" and top["events"] == len(errors)
    assert "Request failed for order <*>" in top["template"]
    event = top["exemplars"][0]["event"]
    assert event[0] == errors[0] and len(event) == 8  # the stack trace is one event
    assert event[-2].startswith("\tat org.postgresql") and event[-1] == "\t... 12 more"
    assert any(line.startswith("Caused by: org.postgresql") for line in event)
    # the first error, with the deploy just above it in the lines around it
    assert report["first_error"]["event"][0] == errors[0]
    assert report["first_error"]["time"] == "2024-05-01T12:15:00.663Z"
    assert any("Started Application" in line for line in report["first_error"]["before"])
    # the change point is the deploy, and it brought the new cluster
    (change,) = report["change_points"]
    assert "2024-05-01T12:14:4" <= change["at"] <= "2024-05-01T12:15:1"
    assert change["errors_per_1000_lines_before"] == 0 and change["new_clusters"] == [top["id"]]
    assert report["severity"] == "high"
    # every line is counted once: as an event or inside a stack trace
    assert report["input"]["events"] + report["input"]["stack_trace_lines"] == len(text.splitlines())


def test_an_oom_loop() -> None:
    report = report_of(oom_loop(restarts=6))
    top = report["clusters"][0]
    assert top["level"] == "fatal" and top["events"] == 6
    assert top["template"].startswith("Out of memory: Killed process <*> (worker)")
    assert top["burstiness"] < 0  # a regular loop, not a burst
    assert report["input"]["formats"] == {"syslog": 264}
    assert report["severity"] == "critical"
    assert any("processed batch 39 rss=1955MB" in line
               for line in top["exemplars"][0]["before"])


def test_mixed_formats_and_stack_traces() -> None:
    report = report_of(mixed_formats())
    assert {"json", "logfmt", "access"} <= set(report["input"]["formats"])
    by_template = {c["template"]: c for c in report["clusters"]}
    http = next(c for t, c in by_template.items() if "HTTP <*> GET <*>" in t)
    assert http["events"] == 30 and http["level"] == "error"  # the 502s, not the 200s
    python = by_template["ZeroDivisionError: division by zero"]
    assert python["exemplars"][0]["event"] == [
        "Traceback (most recent call last):", '  File "/srv/app/handlers.py", line 42, in handle',
        "    total = price / quantity", "ZeroDivisionError: division by zero"]
    go = next(c for t, c in by_template.items() if t.startswith("panic: runtime error"))
    assert go["level"] == "fatal" and len(go["exemplars"][0]["event"]) == 8
    assert go["exemplars"][0]["event"][-1] == "exit status 2"
    assert go["exemplars"][0]["time"] == "2024-05-01T12:04:11Z"  # from the line above it
    json_errors = next(c for t, c in by_template.items() if "upstream timeout" in t)
    assert json_errors["events"] == 6


def _exact(value: Any) -> Any:
    """A report's part without what depends on the line volume's placement."""
    if isinstance(value, list):
        return [_exact(v) for v in value]
    return {k: v for k, v in value.items() if k not in ("change", "score")} \
        if isinstance(value, dict) else value


@pytest.mark.parametrize("block", [97, 4096])
def test_small_blocks_give_the_same_report(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Events, context and counts do not depend on where the reads cut the stream (the
    lines expected after the log's first part do, a little: the line volume is placed on
    the timeline from the times of a few lines per read; this log's times go back, too)."""
    text = db_pool_deploy(minutes=20) + mixed_formats()
    whole = report_of(text)
    monkeypatch.setitem(rules.limits()["read"], "block_bytes", block)
    cut = report_of(text)
    for key in ("clusters", "first_error", "levels"):
        assert _exact(cut[key]) == _exact(whole[key]), key
    assert [c["change"]["new"] for c in cut["clusters"]] == \
        [c["change"]["new"] for c in whole["clusters"]]
    assert cut["input"]["events"] == whole["input"]["events"]


def test_invalid_utf8_is_read_with_replacement() -> None:
    data = b"2024-05-01T12:00:00Z ERROR bad byte \xff\xfe here\n2024-05-01T12:00:01Z INFO ok\n"
    report = analyse(open_log(None, io.BufferedReader(io.BytesIO(data))))
    assert report["clusters"][0]["exemplars"][0]["event"] == [
        "2024-05-01T12:00:00Z ERROR bad byte \ufffd\ufffd here"]


def test_times_far_apart_stay_bounded() -> None:
    """A line from 1970 beside lines from 2024, and one from 9999: the timeline coarsens,
    it never walks the years bucket by bucket."""
    text = ("2024-05-01T12:00:00Z INFO a\n" * 50 + "1970-01-01T00:00:01Z ERROR old\n"
            + "2024-05-01T12:00:05Z INFO b\n" * 50 + "9999-12-31T23:59:59Z ERROR future\n")
    report = report_of(text)
    assert len(report["timeline"]["buckets"]) <= rules.limits()["report"]["timeline_buckets"]
    assert report["levels"] == {"error": 2, "info": 100}


def test_a_log_of_unique_errors_keeps_bounded_clusters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line its own template: the cluster table is pruned (hot ones too), every
    line is still counted."""
    from aiagent.engines.logs import analyzer

    monkeypatch.setattr(analyzer, "MAX_HOT_CLUSTERS", 40)
    monkeypatch.setattr(analyzer, "MAX_CLUSTERS", 200)
    rnd = random.Random(5)
    words = ["".join(rnd.choice("ghijklmnopqrstuvwxyz") for _ in range(7)) for _ in range(3000)]
    lines = [f"ERROR {w} {words[(i * 7) % 3000]}" for i, w in enumerate(words)]
    lines += [f"INFO {w} {w[::-1]} ready" for w in words]
    seen: list[int] = []
    original = analyzer.Analyzer._prune

    def prune(self: analyzer.Analyzer, hot: bool = False) -> None:
        original(self, hot)
        seen.append(sum(1 for c in self.clusters.values() if c.level >= formats.WARNING))

    monkeypatch.setattr(analyzer.Analyzer, "_prune", prune)
    monkeypatch.setitem(rules.limits()["read"], "block_bytes", 4096)
    report = report_of("\n".join(lines) + "\n")
    assert seen and max(seen) <= 40
    assert report["input"]["lines"] == 6000 and report["input"]["pruned_lines"] > 0
    assert sum(report["levels"].values()) + report["input"]["pruned_lines"] == 6000


def test_incidents_are_ranked_by_what_changed() -> None:
    """A new error late in the log and an error grown five-fold outrank a steady error
    with more events."""
    lines = []
    for i in range(1000):
        stamp = f"2024-05-01 12:{i // 60:02d}:{i % 60:02d},000"
        if i % 10 == 3:
            text = f"ERROR [db] c.s.Repo - query timeout after {100 + i} ms"
        elif i >= 900 and i % 12 == 0:
            text = f"ERROR [pay] c.s.Gateway - payment gateway refused card {4000 + i}"
        elif i % 100 == 7 or (i >= 800 and i % 5 == 1):
            text = f"ERROR [cache] c.s.Cache - cache refresh failed for region eu-{i % 3}"
        else:
            text = f"INFO [http] c.s.Api - GET /orders/{i} 200"
        lines.append(f"{stamp} {text}")
    report = report_of("\n".join(lines) + "\n")
    ranked = [c["template"] for c in report["clusters"]]
    by = {c["template"]: c for c in report["clusters"]}
    steady = next(t for t in ranked if "query timeout" in t)
    new = next(t for t in ranked if "payment gateway" in t)
    grown = next(t for t in ranked if "cache refresh" in t)
    assert by[steady]["events"] > 2 * by[grown]["events"] > 4 * by[new]["events"]
    assert ranked.index(new) < ranked.index(steady) and ranked.index(grown) < ranked.index(steady)
    assert by[new]["change"]["new"] and by[new]["change"]["events_before"] == 0
    assert not by[steady]["change"]["new"] and by[steady]["change"]["surprise"] == 0
    assert by[grown]["change"]["events_after"] > 3 * by[grown]["change"]["expected_after"]


def test_events_merged_by_the_miner_are_one_item() -> None:
    """The first lines of a template with a unique word each get events of their own until
    the word's place becomes a variable; the report folds them into one item."""
    rnd = random.Random(2)
    lines = []
    for i in range(400):
        word = "".join(rnd.choice("abcdefghij") for _ in range(10))
        level, text = ("ERROR", f"save failed for order {i}: connection reset session {word}") \
            if i % 4 == 0 else ("INFO", f"GET /orders/{i} 200 session {word}")
        lines.append(f"2024-05-01 12:{i // 60:02d}:{i % 60:02d},000 {level} [db] c.s.Repo - {text}")
    report = report_of("\n".join(lines) + "\n")
    errors = [c for c in report["clusters"] if c["level"] == "error"]
    assert len(errors) == 1 and errors[0]["events"] == 100
    assert errors[0]["template"] == "save failed for order <*>: connection reset session <*>"
    assert errors[0]["first_seen"] == "2024-05-01T12:00:00Z"
    assert errors[0]["exemplars"][0]["line"] == 1
