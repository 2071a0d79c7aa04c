"""Judge a SPDX expression against `.security.yaml` `licenses: {deny, allow}`.

Patterns are SPDX ids or globs, case-insensitive; a plain id also covers its variants
(`GPL-3.0` matches GPL-3.0-only and GPL-3.0-or-later). An OR expression passes when any
alternative passes (you may pick it); AND needs every part; a WITH exception is judged by
its license.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from aiagent.engines.security.config import LicensePolicy

DENIED, NOT_ALLOWED = "denied", "not-allowed"


def matches(license_id: str, pattern: str) -> bool:
    key, pat = license_id.lower(), pattern.strip().lower()
    if any(ch in pat for ch in "*?["):
        return fnmatchcase(key, pat)
    return key == pat or key.startswith(pat + "-")


def judge_id(license_id: str, policy: LicensePolicy) -> str:
    if any(matches(license_id, p) for p in policy.deny):
        return DENIED
    if policy.allow and not any(matches(license_id, p) for p in policy.allow):
        return NOT_ALLOWED
    return ""


def failures(tree: Any, policy: LicensePolicy) -> list[tuple[str, str]]:
    """(verdict, license id) pairs that make the expression unacceptable; [] if it passes."""
    operator = getattr(tree, "operator", "").strip()
    if operator in {"OR", "AND"}:
        results = [failures(arg, policy) for arg in tree.args]
        if operator == "OR" and any(not r for r in results):
            return []
        return [item for r in results for item in r]
    symbol = getattr(tree, "license_symbol", tree)
    verdict = judge_id(str(symbol.key), policy)
    return [(verdict, str(symbol.key))] if verdict else []
