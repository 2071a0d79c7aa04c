"""The outputs: the JSON document (static part, the model's report, the final severity)
and its Markdown rendering. Text from the log and from the model is untrusted: control
characters are removed before it reaches a terminal."""

from __future__ import annotations

import re
from typing import Any

from aiagent.engines.logs.incident import Incident
from aiagent.engines.logs.report import SEVERITIES

VERSION = 1
MODEL_WOULD_ADD = ("a model would add an incident report on top of this: a summary, the "
                   "impact, a timeline, root-cause hypotheses with evidence lines and "
                   "confidence, remediation steps and follow-up queries")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
BARS = "▁▂▃▄▅▆▇█"


def document(static: dict[str, Any], incident: Incident | None, *, model_note: str | None = None,
             model_error: str | None = None, attempts: int = 0) -> dict[str, Any]:
    """The JSON output. The severity is the higher of the static and the model's: a log
    cannot talk a model into lowering the gate."""
    model_severity = incident.report["severity"] if incident else None
    final = max(static["severity"], model_severity or "info", key=SEVERITIES.index)
    return {
        "version": VERSION,
        "severity": final,
        "incident": incident.report if incident else None,
        "model": {"used": incident is not None,
                  "attempts": incident.attempts if incident else attempts,
                  "severity": model_severity, "note": model_note, "error": model_error,
                  "checks": incident.notes if incident else []},
        "static": static,
    }


def clean(text: Any) -> str:
    return _CONTROL.sub("\ufffd", str(text))


def markdown(doc: dict[str, Any]) -> str:
    static = doc["static"]
    out = [f"# Log analysis: {clean(static['input']['name'])}", "",
           f"**Severity: {doc['severity']}** (static: {static['severity']}: "
           f"{clean('; '.join(static['severity_reasons']))}"
           + (f"; model: {doc['model']['severity']}" if doc["model"]["severity"] else "") + ")",
           ""]
    if doc["incident"]:
        out += _incident(doc["incident"], doc["model"]["checks"])
    elif doc["model"]["error"]:
        out += [f"> The model's report failed: {clean(doc['model']['error'])}", ""]
    elif doc["model"]["note"]:
        out += [f"> {clean(doc['model']['note'])}", ""]
    out += _overview(static) + _first_error(static) + _clusters(static) \
        + _changes(static) + _timeline(static) + _others(static) + _rare(static)
    return "\n".join(out).rstrip("\n") + "\n"


def _incident(report: dict[str, Any], checks: list[str]) -> list[str]:
    out = ["## Incident report", "", clean(report["summary"]), ""]
    if report["impact"]:
        out += [f"**Impact:** {clean(report['impact'])}", ""]
    if report["timeline"]:
        out += ["### Timeline", ""] + [f"- `{clean(t['time'])}` {clean(t['event'])}"
                                       for t in report["timeline"]] + [""]
    if report["root_cause_hypotheses"]:
        out += ["### Root-cause hypotheses", ""]
        for n, h in enumerate(report["root_cause_hypotheses"], 1):
            out += [f"{n}. {clean(h['hypothesis'])} (confidence {h['confidence']:.0%})"]
            out += [f"   - `{clean(e)}`" for e in h["evidence"]]
        out += [""]
    for title, key in (("Remediation", "remediation"), ("Follow-up queries", "follow_up_queries")):
        if report[key]:
            out += [f"### {title}", ""] + [f"- {clean(item)}" for item in report[key]] + [""]
    out += [f"_{clean(note)}._" for note in checks] + ([""] if checks else [])
    return out


def _overview(static: dict[str, Any]) -> list[str]:
    info, span = static["input"], static["time_range"]
    formats = ", ".join(f"{k} {v}" for k, v in info["formats"].items()) or "none"
    levels = ", ".join(f"{k} {v}" for k, v in static["levels"].items()) or "none"
    out = ["## Overview", "",
           f"- {info['lines']} lines ({info['bytes']} bytes{', gzip' if info['compressed'] else ''}),"
           f" {info['events']} events, {info['stack_trace_lines']} stack-trace lines",
           f"- formats: {formats}", f"- levels: {levels}"]
    if span["start"]:
        out.append(f"- from {span['start']} to {span['end']}")
    if info["cut_lines"]:
        out.append(f"- {info['cut_lines']} over-long lines were cut")
    return out + [""]


def _block(ex: dict[str, Any]) -> list[str]:
    lines = [*ex["before"], *ex["event"], *ex["after"]]
    fence = "~~~~" if any("```" in line for line in lines) else "```"
    where = f"line {ex['line']}" + (f", {ex['time']}" if ex["time"] else "")
    return [f"{where}:", "", fence, *(clean(line) for line in lines), fence, ""]


def _first_error(static: dict[str, Any]) -> list[str]:
    first = static["first_error"]
    return ["## First error", ""] + _block(first) if first else []


def _clusters(static: dict[str, Any]) -> list[str]:
    if not static["clusters"]:
        return ["## Error clusters", "", "No errors or warnings.", ""]
    out = ["## Error clusters", "",
           "| # | level | events | first seen | last seen | burstiness | template |",
           "|---|---|---|---|---|---|---|"]
    for c in static["clusters"]:
        template = clean(c["template"]).replace("|", "\\|")
        out.append(f"| {c['id']} | {c['level']} | {c['events']} | {c['first_seen']} | "
                   f"{c['last_seen']} | {c['burstiness']} | `{template}` |")
    out.append("")
    for c in static["clusters"][:5]:
        out += [f"### Cluster {c['id']}: {c['events']} {c['level']} events", ""]
        out += _block(c["exemplars"][-1]) if c["exemplars"] else []
    return out


def _changes(static: dict[str, Any]) -> list[str]:
    if not static["change_points"]:
        return []
    out = ["## Change points", ""]
    for p in static["change_points"]:
        new = f"; new clusters: {', '.join(map(str, p['new_clusters']))}" if p["new_clusters"] else ""
        out.append(f"- at {p['at']}: errors per 1000 lines {p['errors_per_1000_lines_before']}"
                   f" → {p['errors_per_1000_lines_after']}{new}")
    return out + [""]


def _timeline(static: dict[str, Any]) -> list[str]:
    rows = static["timeline"]["buckets"]
    if len(rows) < 2:
        return []
    step = max(1, -(-len(rows) // 80))
    errors = [sum(r["errors"] for r in rows[i:i + step]) for i in range(0, len(rows), step)]
    top = max(errors) or 1
    bars = "".join(BARS[min(7, int(e * 7 / top + 0.999))] if e else " " for e in errors)
    unit = static["timeline"]["unit"]
    return ["## Timeline of errors", "",
            f"`{bars}` (one mark = {static['timeline']['bucket'] * step:g} {unit}, "
            f"from {rows[0]['start']})", ""]


def _others(static: dict[str, Any]) -> list[str]:
    if not static["other_clusters"]:
        return []
    return ["## Most frequent other templates", ""] + [
        f"- {c['count']} × `{clean(c['template'])}`" for c in static["other_clusters"]] + [""]


def _rare(static: dict[str, Any]) -> list[str]:
    rare = static.get("rare_clusters") or []
    if not rare:
        return []
    return ["## Rare templates", ""] + [
        f"- {c['count']} × {c['level']} `{clean(c['template'])}`" for c in rare] + [""]
