"""The static report (a plain dict, the JSON output's ``static`` part) from an analysis:
ranked error clusters, the timeline, the first error, change points and a severity."""

from __future__ import annotations

import math
from typing import Any

from aiagent.engines.logs.analyzer import Analyzer
from aiagent.engines.logs.events import ClusterStats, Exemplar
from aiagent.engines.logs.formats import ERROR, LEVELS, RANK, WARNING
from aiagent.engines.logs.rules import limits
from aiagent.engines.logs.source import LogSource
from aiagent.engines.logs.timeline import change_points, lines_before
from aiagent.engines.logs.timeparse import iso

SEVERITIES = ("info", "low", "medium", "high", "critical")
LEVEL_WEIGHT = {RANK["fatal"]: 3.0, RANK["error"]: 1.0, RANK["warning"]: 0.2}


def score(stats: ClusterStats, change: dict[str, Any] | None = None) -> float:
    """Rank of an error cluster, by what changed: (√events + the surprise of its events
    after the first part of the log, given their rate per line in that part) × (1 +
    burstiness, if bursty) × level weight (fatal 3, error 1, warning 0.2). A template new
    after the start, or one whose share of the lines grew, outranks one that was always
    there at the same rate, however frequent."""
    burst = max(0.0, stats.arrivals.burstiness())
    surprise = change["surprise"] if change else 0.0
    return round((math.sqrt(stats.events) + surprise) * (1 + burst)
                 * LEVEL_WEIGHT.get(stats.level, 0.0), 2)


def change(analysis: Analyzer, stats: ClusterStats) -> dict[str, Any]:
    """A cluster's events in the first part of the log (``baseline_share`` of its span)
    and after it; the events expected after at the first part's rate per line (as if
    ``baseline_prior`` events had been seen there); the surprise of the events seen after
    (a Poisson log-likelihood ratio, 0 when no more than expected) and whether the
    template is new (first seen after the first part)."""
    cfg = limits()["report"]
    start, end = _span(analysis)
    series = stats.series
    if series is None or start is None or end is None or end <= start:
        return {"new": False, "events_before": None, "events_after": stats.events,
                "expected_after": None, "surprise": 0.0}
    edge = start + float(cfg["baseline_share"]) * (end - start)
    before = series.before(edge)
    after = sum(series.counts) - before
    lines_b, lines_a = lines_before(analysis.timeline, edge)
    expected = lines_a * (before + float(cfg["baseline_prior"])) / max(lines_b, 1.0)
    surprise = after * math.log(after / expected) - (after - expected) \
        if after > expected > 0 else 0.0
    first = stats.arrivals.first
    return {"new": first is not None and first >= edge, "events_before": round(before, 1),
            "events_after": round(after, 1), "expected_after": round(expected, 1),
            "surprise": round(surprise, 2)}


def _span(analysis: Analyzer) -> tuple[float | None, float | None]:
    if analysis.time.timed:
        return analysis.time.start_at, analysis.time.end_at
    return 1.0, float(analysis.lines)


def build(analysis: Analyzer, source: LogSource) -> dict[str, Any]:
    cfg = limits()["report"]
    changes = {c.cluster_id: change(analysis, c) for c in analysis.clusters.values()
               if c.level >= WARNING and c.events}
    hot = sorted((c for c in analysis.clusters.values() if c.cluster_id in changes),
                 key=lambda c: (-score(c, changes[c.cluster_id]), c.cluster_id))
    other = sorted((c for c in analysis.clusters.values() if c.level < WARNING and c.count > 0),
                   key=lambda c: (-c.count, c.cluster_id))
    points = _change_points(analysis, int(cfg["max_change_points"]))
    report: dict[str, Any] = {
        "input": _input(analysis, source),
        "time_range": {"axis": "time" if analysis.time.timed else "line",
                       "start": iso(analysis.time.start_at), "end": iso(analysis.time.end_at)},
        "levels": {LEVELS[rank]: n for rank, n in sorted(analysis.levels.items(), reverse=True)
                   if n > 0},
        "clusters": [_cluster(analysis, c, changes[c.cluster_id])
                     for c in hot[:int(cfg["top_clusters"])]],
        "other_clusters": [_brief(analysis, c) for c in other[:int(cfg["top_other"])]],
        "rare_clusters": _rare(analysis, int(cfg["top_rare"])),
        "first_error": _first_error(analysis),
        "change_points": points,
        "timeline": _timeline(analysis),
    }
    report["severity"], report["severity_reasons"] = severity(analysis, points)
    return report


def _rare(analysis: Analyzer, limit: int) -> list[dict[str, Any]]:
    """The templates seen least (at most twice), any level: what happened once."""
    seen = [c for c in analysis.clusters.values() if 0 < c.count <= 2]
    if len(seen) > 10 * limit and len(seen) * 2 > len(analysis.clusters):  # unique lines
        return []
    seen.sort(key=lambda c: (-c.level, c.count, c.cluster_id))
    return [_brief(analysis, c) for c in seen[:limit]]


def _input(analysis: Analyzer, source: LogSource) -> dict[str, Any]:
    return {
        "name": source.name, "bytes": analysis.bytes, "compressed": source.compressed,
        "lines": analysis.lines, "events": analysis.events,
        "stack_trace_lines": analysis.inner_lines, "blank_lines": analysis.blank_lines,
        "cut_lines": source.cut_lines, "pruned_lines": analysis.pruned_lines,
        "formats": {name: n for name, n in analysis.formats.most_common() if n > 0},
    }


def _template(analysis: Analyzer, stats: ClusterStats) -> str:
    return analysis.miner.template(stats.cluster_id) or stats.message


def _brief(analysis: Analyzer, stats: ClusterStats) -> dict[str, Any]:
    return {"id": stats.cluster_id, "template": _template(analysis, stats)[:400],
            "level": LEVELS[stats.level], "count": stats.count}


def _where(analysis: Analyzer, value: float | None) -> Any:
    if value is None:
        return None
    return iso(value) if analysis.time.timed else int(value)


def _cluster(analysis: Analyzer, stats: ClusterStats, changed: dict[str, Any]) -> dict[str, Any]:
    exemplars = [stats.first, stats.sample]
    return {
        **_brief(analysis, stats), "events": stats.events,
        "first_seen": _where(analysis, stats.arrivals.first),
        "last_seen": _where(analysis, stats.arrivals.last),
        "burstiness": stats.arrivals.burstiness(), "change": changed,
        "score": score(stats, changed),
        "exemplars": [exemplar(e) for e in exemplars if e is not None],
    }


def exemplar(ex: Exemplar) -> dict[str, Any]:
    return {"line": ex.line, "time": iso(ex.at), "before": list(ex.before),
            "event": list(ex.lines), "after": list(ex.after)}


def _first_error(analysis: Analyzer) -> dict[str, Any] | None:
    ex = analysis.first_error
    if ex is None:
        return None
    return {"cluster": analysis.first_error_cluster, **exemplar(ex)}


def _change_points(analysis: Analyzer, limit: int) -> list[dict[str, Any]]:
    buckets = analysis.timeline.buckets()
    if len(buckets) < 4:
        return []
    errors = [b["errors"] for _, b in buckets]
    lines = [max(b["lines"], b["errors"]) for _, b in buckets]
    found = []
    for cp in change_points(errors, lines, limit=limit):
        start = buckets[cp.index][0]
        end = start + analysis.timeline.width
        new = sorted(c.cluster_id for c in analysis.clusters.values()
                     if c.level >= WARNING and c.arrivals.first is not None
                     and start - 2 * analysis.timeline.width <= c.arrivals.first
                     < end + analysis.timeline.width)
        found.append({"at": _where(analysis, start),
                      "errors_per_1000_lines_before": round(cp.rate_before * 1000, 2),
                      "errors_per_1000_lines_after": round(cp.rate_after * 1000, 2),
                      "score": cp.score, "new_clusters": new[:10]})
    return found


def _timeline(analysis: Analyzer) -> dict[str, Any]:
    rows = [{"start": _where(analysis, at), **{k: round(v) for k, v in counts.items()}}
            for at, counts in analysis.timeline.buckets()]
    return {"bucket": analysis.timeline.width if analysis.time.timed else int(analysis.timeline.width),
            "unit": "seconds" if analysis.time.timed else "lines", "buckets": rows}


def severity(analysis: Analyzer, points: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """The static incident severity and the rules that gave it (``data/analysis.toml``)."""
    rules = limits()["severity"]
    fatal = sum(c.events for c in analysis.clusters.values() if c.level == RANK["fatal"])
    errors = sum(c.events for c in analysis.clusters.values() if c.level >= ERROR)
    warnings = sum(c.events for c in analysis.clusters.values() if c.level == WARNING)
    ratio = errors / analysis.events if analysis.events else 0.0
    rises = [(p["errors_per_1000_lines_after"] / max(p["errors_per_1000_lines_before"], 0.01), p)
             for p in points]
    jump, where = max(rises, key=lambda r: r[0], default=(0.0, None))
    rise = "" if where is None else (
        f"the error rate rose from {where['errors_per_1000_lines_before']} to "
        f"{where['errors_per_1000_lines_after']} per 1000 lines at {where['at']}")
    checks = [
        ("critical", fatal >= rules["critical_fatal_events"], f"{fatal} fatal events"),
        ("critical", ratio >= rules["critical_error_ratio"], f"{ratio:.0%} of events are errors"),
        ("high", fatal >= rules["high_fatal_events"], f"{fatal} fatal events"),
        ("high", ratio >= rules["high_error_ratio"], f"{ratio:.1%} of events are errors"),
        ("high", jump >= rules["high_rate_jump"], rise),
        ("medium", errors >= rules["medium_error_events"], f"{errors} error events"),
        ("low", warnings >= rules["low_warning_events"], f"{warnings} warnings"),
    ]
    for level in SEVERITIES[::-1]:
        reasons = [why for name, holds, why in checks if name == level and holds]
        if reasons:
            return level, reasons
    return "info", ["no errors or warnings"]
