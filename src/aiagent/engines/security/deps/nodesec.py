"""Node.js Security WG advisories (``vuln/npm/*.json`` of nodejs/security-wg) as OSV
records for npm.

``vulnerable_versions`` is an npm semver range (``>=1.0.0 <1.2.3 || ^2.0.0``, ``~1.2``,
``<=1.4``); each ``||`` part becomes one SEMVER range of introduced/fixed (or
last_affected) events. Records whose range cannot be read are skipped, not guessed.
"""

from __future__ import annotations

import re
from typing import Any

COMPARATOR = re.compile(r"(>=|<=|>|<|=|\^|~)?\s*v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?"
                        r"(-[0-9A-Za-z.-]+)?")
Version = tuple[int, int, int]


def is_nodesec(data: Any) -> bool:
    return isinstance(data, dict) and "module_name" in data and "vulnerable_versions" in data


def to_osv(data: dict[str, Any]) -> dict[str, Any] | None:
    ranges = affected_ranges(str(data.get("vulnerable_versions") or ""))
    name = str(data.get("module_name") or "")
    if not ranges or not name or data.get("id") is None:
        return None
    ident = f"NSWG-ECO-{data['id']}"
    cves = [str(c) for c in data.get("cves") or [] if str(c).startswith("CVE-")]
    record: dict[str, Any] = {
        "id": ident, "modified": f"{data.get('updated_at') or data.get('publish_date') or ''}"
                                 "T00:00:00Z",
        "aliases": cves, "summary": str(data.get("title") or ""),
        "affected": [{"package": {"ecosystem": "npm", "name": name},
                      "ranges": [{"type": "SEMVER", "events": events}]} for events in ranges],
    }
    if data.get("cvss_vector"):
        record["severity"] = [{"type": "CVSS_V3", "score": str(data["cvss_vector"])}]
    return record


def affected_ranges(spec: str) -> list[list[dict[str, str]]]:
    """One event list per ``||`` part; [] when any part cannot be read."""
    out = []
    for part in spec.split("||"):
        events = _events(part.strip())
        if events is None:
            return []
        out.append(events)
    return out


def _events(part: str) -> list[dict[str, str]] | None:
    if part in {"", "*", "x", "X"}:
        return [{"introduced": "0"}]
    lo: tuple[str, str] | None = None  # (event, version)
    hi: tuple[str, str] | None = None
    pos = 0
    for m in COMPARATOR.finditer(part):
        if part[pos:m.start()].strip():
            return None
        pos = m.end()
        op, version, given = m.group(1) or "=", _version(m), _given(m)
        if op in {">=", ">"}:
            lo = ("introduced", _text(version, m.group(5)) if op == ">=" else _text(_bump(version, 2)))
        elif op == "<":
            hi = ("fixed", _text(version, m.group(5)))
        elif op == "<=":  # <=1.4 means <1.5.0
            hi = ("last_affected", _text(version, m.group(5))) if given == 3 \
                else ("fixed", _text(_bump(version, given - 1)))
        else:
            lo, hi = ("introduced", _text(version, m.group(5))), _upper(op, given, version, m)
    if part[pos:].strip():
        return None
    events = [{"introduced": lo[1] if lo else "0"}]
    if hi is not None:
        if hi[1] == "0.0.0" and hi[0] == "fixed":
            return None  # `<0.0.0`: nothing is affected
        events.append({hi[0]: hi[1]})
    return events


def _upper(op: str, given: int, version: Version, m: re.Match[str]) -> tuple[str, str]:
    """`^1.2.3` < 2.0.0 (`^0.2.3` < 0.3.0), `~1.2.3` < 1.3.0, `1.2` < 1.3.0, `1.2.3` itself."""
    if op == "^":
        index = next((i for i in range(given) if version[i]), given - 1)
        return ("fixed", _text(_bump(version, index)))
    if op == "~" or given < 3:
        return ("fixed", _text(_bump(version, 1 if given >= 2 else 0)))
    return ("last_affected", _text(version, m.group(5)))


def _given(m: re.Match[str]) -> int:
    """How many leading parts are numbers (`1.x` and `1` have 1)."""
    n = 0
    for i in (2, 3, 4):
        if not (m.group(i) or "").isdigit():
            break
        n += 1
    return max(n, 1)


def _version(m: re.Match[str]) -> Version:
    parts = [m.group(i) for i in (2, 3, 4)]
    nums = [int(p) if p and p.isdigit() else 0 for p in parts]
    return nums[0], nums[1], nums[2]


def _bump(version: Version, index: int) -> Version:
    bumped = list(version[:index]) + [version[index] + 1] + [0] * (2 - index)
    return bumped[0], bumped[1], bumped[2]


def _text(version: Version, pre: str | None = None) -> str:
    return ".".join(str(n) for n in version) + (pre or "")
