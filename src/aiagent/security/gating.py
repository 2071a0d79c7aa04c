"""CI gating: does an audit exceed `--fail-on` / `--max-findings` (or `ci.*` in config)?"""

from __future__ import annotations

from collections.abc import Sequence

from aiagent.security.finding import Finding, Severity


def gate_count(findings: Sequence[Finding], fail_on: Severity | None) -> int:
    """Findings that count against the gate: at/above ``fail_on``, else all but info."""
    floor = fail_on.rank if fail_on is not None else Severity.LOW.rank
    return sum(1 for f in findings if f.severity.rank >= floor)


def exceeds(findings: Sequence[Finding], fail_on: Severity | None,
            max_findings: int | None) -> bool:
    """``fail_on`` alone allows none at/above it; with ``max_findings`` allows that many."""
    if fail_on is None and max_findings is None:
        return False
    allowed = max_findings if max_findings is not None else 0
    return gate_count(findings, fail_on) > allowed
