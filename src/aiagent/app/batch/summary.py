"""``DIR/summary.json`` and ``DIR/summary.md``: findings by severity and repository, the
failures with their one-line reason, time and cost per task."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from aiagent.app.batch.jobs import SEVERITIES


def build(job: str, engine: str, results: list[dict[str, Any]], wall: float,
          skipped: int, llm: dict[str, Any] | None = None) -> dict[str, Any]:
    """The summary; ``llm``: this run's model calls (calls, cost, peak in flight, refused)."""
    ordered = sorted(results, key=lambda r: r["name"])
    total: Counter[str] = Counter()
    for result in ordered:
        total.update(result.get("findings") or {})
    failures = [{"repository": r["name"], "source": r["source"], "reason": r["reason"]}
                for r in ordered if r["status"] != "done"]
    degraded = [{"repository": r["name"], "source": r["source"], "reason": r["reason"]}
                for r in ordered if r["status"] == "done" and r.get("reason")]
    return {
        "job": job, "engine": engine, "tasks": len(ordered),
        "done": sum(1 for r in ordered if r["status"] == "done"), "failed": len(failures),
        "skipped_as_done_before": skipped, "wall_seconds": round(wall, 3),
        "task_seconds": round(sum(r.get("seconds", 0.0) for r in ordered), 3),
        "cost": round(sum(r.get("cost", 0.0) for r in ordered), 6),
        "findings": {s: total[s] for s in SEVERITIES},
        "repositories": [
            {"repository": r["name"], "source": r["source"], "status": r["status"],
             "reason": r["reason"], "findings": {s: (r.get("findings") or {}).get(s, 0) for s in SEVERITIES},
             "seconds": r.get("seconds", 0.0), "cost": r.get("cost", 0.0),
             "model_calls": r.get("model_calls", 0),
             "peak_rss_mb": r.get("peak_rss_mb", 0.0), "outputs": r.get("outputs", [])}
            for r in ordered
        ],
        "failures": failures,
        "degraded": degraded,
        "llm": llm,
    }


def write(out: Path, summary: dict[str, Any]) -> None:
    _replace(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    _replace(out / "summary.md", markdown(summary))


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def markdown(summary: dict[str, Any]) -> str:
    heads = " | ".join(s.capitalize() for s in SEVERITIES)
    lines = [
        f"# Batch {summary['job']} ({summary['engine']} engine)", "",
        f"{summary['tasks']} repositories: {summary['done']} done, {summary['failed']} failed "
        f"({summary['skipped_as_done_before']} done by an earlier run). Wall time "
        f"{summary['wall_seconds']:.1f}s, task time {summary['task_seconds']:.1f}s, "
        f"cost ${summary['cost']:.4f}.", "",
        "## Findings by severity", "",
        f"| {heads} |", "|" + " ---: |" * len(SEVERITIES),
        "| " + " | ".join(str(summary["findings"][s]) for s in SEVERITIES) + " |", "",
        "## Repositories", "",
        f"| Repository | Status | {heads} | Seconds | Cost | Peak MB |",
        "| --- | --- |" + " ---: |" * (len(SEVERITIES) + 3),
    ]
    for repo in summary["repositories"]:
        counts = " | ".join(str(repo["findings"][s]) for s in SEVERITIES)
        lines.append(f"| {repo['repository']} | {repo['status']} | {counts} | "
                     f"{repo['seconds']:.1f} | {repo['cost']:.4f} | {repo['peak_rss_mb']:.0f} |")
    if summary.get("llm"):
        llm = summary["llm"]
        budget = f" of ${llm['max_cost']:.4f}" if llm.get("max_cost") is not None else ""
        lines += ["", f"Model calls this run: {llm['calls']} (at most {llm['peak_in_flight']} at once, "
                  f"limit {llm['concurrency']}), ${llm['cost']:.4f}{budget}; "
                  f"{llm['refused']} refused by the budget."]
    if summary.get("degraded"):
        lines += ["", "## Static only", ""]
        lines += [f"- **{d['repository']}** ({d['source']}): {_escape(d['reason'])}"
                  for d in summary["degraded"]]
    if summary["failures"]:
        lines += ["", "## Failures", ""]
        lines += [f"- **{f['repository']}** ({f['source']}): {_escape(f['reason'])}"
                  for f in summary["failures"]]
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")
