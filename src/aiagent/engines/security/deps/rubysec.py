"""ruby-advisory-db advisories (``gems/NAME/*.yml``) as OSV records for RubyGems.

``patched_versions`` and ``unaffected_versions`` (RubyGems requirements, ``~>`` included)
describe the safe versions; the affected ranges are their complement. The CVSS score, when
given, becomes the severity label.
"""

from __future__ import annotations

import re
from typing import Any

from univers.versions import RubygemsVersion

from aiagent.engines.security.deps.rustsec import Bound, Interval, events_from_safe

COMPARATOR = re.compile(r"^\s*(>=|<=|!=|>|<|=|~>)?\s*([0-9][0-9A-Za-z.]*)\s*$")


def is_rubysec(data: Any) -> bool:
    return isinstance(data, dict) and "gem" in data and "id" not in data


def to_osv(data: dict[str, Any]) -> dict[str, Any] | None:
    safe = [_interval(str(r)) for r in [*(data.get("patched_versions") or []),
                                         *(data.get("unaffected_versions") or [])]]
    events = events_from_safe([i for i in safe if i is not None])
    ident = _id(data)
    if not events or not ident:
        return None
    aliases = [a for a in (f"CVE-{data['cve']}" if data.get("cve") else "",
                           f"GHSA-{data['ghsa']}" if data.get("ghsa") else "") if a and a != ident]
    record: dict[str, Any] = {
        "id": ident, "modified": f"{data.get('date', '')}T00:00:00Z", "aliases": aliases,
        "summary": str(data.get("title") or ""),
        "affected": [{"package": {"ecosystem": "RubyGems", "name": str(data["gem"])},
                      "ranges": [{"type": "ECOSYSTEM", "events": events}]}],
    }
    label = _label(data.get("cvss_v3") or data.get("cvss_v4") or data.get("cvss_v2"))
    if label:
        record["database_specific"] = {"severity": label}
    return record


def _id(data: dict[str, Any]) -> str:
    if data.get("ghsa"):
        return f"GHSA-{data['ghsa']}"
    if data.get("cve"):
        return f"CVE-{data['cve']}"
    return f"OSVDB-{data['osvdb']}" if data.get("osvdb") else ""


def _label(score: Any) -> str:
    try:
        value = float(score)
    except (TypeError, ValueError):
        return ""
    return "CRITICAL" if value >= 9 else "HIGH" if value >= 7 else "MODERATE" if value >= 4 else "LOW"


def _interval(requirement: str) -> Interval | None:
    lo: Bound | None = None
    hi: Bound | None = None
    for part in requirement.split(","):
        m = COMPARATOR.match(part)
        if m is None or m.group(1) == "!=":
            return None
        op, text = m.group(1) or "=", m.group(2)
        version = RubygemsVersion(text)
        if op in {">=", ">"}:
            lo = Bound(version, op == ">=")
        elif op in {"<", "<="}:
            hi = Bound(version, op == "<=")
        elif op == "=":
            lo, hi = Bound(version, True), Bound(version, True)
        else:  # ~> 1.2.3 means >= 1.2.3, < 1.3; ~> 1.2 means >= 1.2, < 2
            lo, hi = Bound(version, True), Bound(_pessimistic_limit(text), False)
    return Interval(lo, hi)


def _pessimistic_limit(text: str) -> RubygemsVersion:
    parts = [p for p in text.split(".") if p.isdigit()] or ["0"]
    head = parts[:-1] if len(parts) > 1 else parts
    head[-1] = str(int(head[-1]) + 1)
    return RubygemsVersion(".".join(head))
