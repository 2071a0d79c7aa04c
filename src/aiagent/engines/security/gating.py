"""CI gating: does an audit exceed `--fail-on` / `--max-findings` (or `ci.*` in config)?

``check`` says whether the gate failed and why, as one line naming the threshold that
failed, where it came from, and the counts behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from aiagent.engines.security.finding import Finding, Severity


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


@dataclass(frozen=True, slots=True)
class Gate:
    """The thresholds in force and where each came from (a flag, `.security.yaml`, config)."""

    fail_on: Severity | None = None
    max_findings: int | None = None
    fail_on_from: str = "--fail-on"
    max_findings_from: str = "--max-findings"


@dataclass(frozen=True, slots=True)
class GateResult:
    failed: bool
    counted: int = 0
    allowed: int = 0
    by_severity: dict[Severity, int] = field(default_factory=dict)
    demoted: int = 0  # would count but for their path context (tests, examples…)
    message: str = ""


def check(findings: Sequence[Finding], gate: Gate) -> GateResult:
    if gate.fail_on is None and gate.max_findings is None:
        return GateResult(failed=False)
    floor = gate.fail_on or Severity.LOW
    counted = [f for f in findings if f.severity.rank >= floor.rank]
    allowed = gate.max_findings if gate.max_findings is not None else 0
    by_sev = {s: n for s in Severity if (n := sum(1 for f in counted if f.severity is s))}
    demoted = sum(1 for f in findings if f.severity.rank < floor.rank
                  and _original_rank(f) >= floor.rank and "demoted_for" in f.metadata)
    failed = len(counted) > allowed
    result = GateResult(failed, len(counted), allowed, by_sev, demoted)
    return _with_message(result, gate, floor) if failed else result


def _original_rank(f: Finding) -> int:
    try:
        return Severity(f.metadata.get("original_severity", f.severity.value)).rank
    except ValueError:
        return f.severity.rank


def _with_message(result: GateResult, gate: Gate, floor: Severity) -> GateResult:
    parts = ", ".join(f"{n} {s.value}" for s, n in result.by_severity.items())
    noun = "finding" if result.counted == 1 else "findings"
    sources = []
    if gate.fail_on is not None:
        sources.append(f"{gate.fail_on_from} {gate.fail_on.value}")
    if gate.max_findings is not None:
        sources.append(f"{gate.max_findings_from} {gate.max_findings}")
    text = (f"gate failed ({'; '.join(sources)}): {result.counted} {noun} at or above "
            f"{floor.value} ({parts}), {result.allowed} allowed")
    if result.demoted:
        text += f"; {result.demoted} more demoted below {floor.value} by path context"
    return GateResult(result.failed, result.counted, result.allowed, result.by_severity,
                      result.demoted, text)
