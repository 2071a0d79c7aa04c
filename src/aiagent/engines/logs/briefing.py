"""What the model is given: a bounded JSON briefing made from the static report (never
the raw log), and the set of lines it quotes, against which evidence is checked."""

from __future__ import annotations

import json
from typing import Any

from aiagent.engines.logs.rules import limits

QUESTION_CHARS = 2000


def make_briefing(static: dict[str, Any], question: str | None = None) -> str:
    """The static report cut down to ``[briefing] max_chars``: fewer exemplars, then
    shorter context, then fewer clusters, until it fits."""
    cfg = limits()["briefing"]
    budget, width = int(cfg["max_chars"]), int(cfg["max_line_chars"])
    for exemplars, context, clusters in ((2, 3, 15), (1, 3, 15), (1, 1, 10), (1, 0, 6),
                                         (1, 0, 3), (0, 0, 3)):
        doc = _document(static, question, width, exemplars, context, clusters)
        text = json.dumps(doc, indent=1, ensure_ascii=False)
        if len(text) <= budget:
            return text
    return text[:budget]


def _document(static: dict[str, Any], question: str | None, width: int, exemplars: int,
              context: int, clusters: int) -> dict[str, Any]:
    def line(text: str) -> str:
        return text[:width]

    def sample(ex: dict[str, Any]) -> dict[str, Any]:
        return {"line": ex["line"], "time": ex["time"],
                "before": [line(t) for t in ex["before"][len(ex["before"]) - context:]]
                if context else [],
                "event": [line(t) for t in ex["event"][:40]],
                "after": [line(t) for t in ex["after"][:context]]}

    doc: dict[str, Any] = {
        "log": {k: static["input"][k] for k in ("bytes", "lines", "events", "formats")},
        "time_range": static["time_range"],
        "levels": static["levels"],
        "static_severity": {"level": static["severity"], "reasons": static["severity_reasons"]},
        "first_error": sample(static["first_error"]) if static.get("first_error") else None,
        "change_points": static["change_points"],
        "error_clusters": [
            {**{k: c[k] for k in ("id", "level", "events", "first_seen", "last_seen",
                                  "burstiness")},
             "template": line(c["template"]),
             "exemplars": [sample(e) for e in c["exemplars"][:exemplars]]}
            for c in static["clusters"][:clusters]],
        "frequent_templates": [{"template": line(c["template"]), "level": c["level"],
                                "count": c["count"]} for c in static["other_clusters"]],
    }
    if question:
        doc["question_from_the_user"] = question[:QUESTION_CHARS]
    return doc


def quoted_lines(briefing: str) -> set[str]:
    """Every line of log text the briefing holds, whitespace-normalised."""
    found: set[str] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in ("before", "event", "after", "template"):
            found.add(normalise(value))

    try:
        walk(json.loads(briefing))
    except ValueError:  # cut to the budget: fall back to its raw lines
        found.update(normalise(t) for t in briefing.splitlines())
    found.discard("")
    return found


def normalise(text: str) -> str:
    return " ".join(text.split())
