"""Shared bits for reporters: severity counts, rule metadata, tool identity."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiagent import __version__
from aiagent.engines.security.finding import Finding, Severity

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult

TOOL_NAME = "aiagent"
TOOL_URI = "https://github.com/aiagent/aiagent"
TOOL_VERSION = __version__

SEVERITY_ORDER = [Severity.CRITICAL, Severity.HIGH, Severity.MEDIUM, Severity.LOW, Severity.INFO]


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How to render: what the command line asked for and what the terminal can show."""

    include_info: bool = False  # SARIF: also emit info-level results (notes)
    color: bool = False  # table: ANSI colours by severity
    width: int = 120  # table: wrap long cells to fit this many columns


def severity_counts(findings: list[Finding]) -> dict[Severity, int]:
    counts = Counter(f.severity for f in findings)
    return {s: counts.get(s, 0) for s in SEVERITY_ORDER}


def skipped_summary(result: AuditResult) -> str:
    parts = [f"{n} {reason}" for reason, n in sorted(result.skipped.items()) if n]
    return ", ".join(parts) if parts else "none"


def location_text(f: Finding) -> str:
    loc = f.location
    return f"{loc.file}:{loc.start_line}" if loc.start_line else loc.file


def context_text(f: Finding) -> str:
    """``test``, ``vendored``… for findings outside source code, else empty."""
    return "" if f.path_category == "source" else f.path_category
