"""Run the LLM phase over an audit's result: plan, ask each analyzer, check, merge, report.

Every failure is reported, never dropped: an answer that stays invalid after the re-asks,
a rejected finding, a provider that fails (which ends the phase), a call cap reached. They
go to ``PhaseReport.errors`` and, prefixed ``llm:``, to the audit's warnings; the static
results stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.contracts.messages import Usage
from aiagent.contracts.providers import Provider, ProviderError
from aiagent.engines.security.analyzers.catalog import Analyzer, select
from aiagent.engines.security.analyzers.intake import Rejected, to_finding
from aiagent.engines.security.analyzers.merge import merge
from aiagent.engines.security.analyzers.plan import (
    DEFAULT_BATCH_TOKENS,
    DEFAULT_BUDGET,
    Batch,
    estimate_tokens,
    make_plan,
)
from aiagent.engines.security.analyzers.prompt import batch_message
from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.finding import Finding
from aiagent.engines.security.postprocess import allowlisted
from aiagent.infra.providers.structured import MAX_REASKS, StructuredOutputError, ask_json

if TYPE_CHECKING:
    from aiagent.engines.security.engine import AuditResult

Cost = Callable[[Usage], float | None]
MAX_ERRORS = 50


@dataclass(slots=True)
class PhaseOptions:
    analyzers: tuple[str, ...] = ()  # none: all
    budget_tokens: int = DEFAULT_BUDGET
    batch_tokens: int = DEFAULT_BATCH_TOKENS
    max_calls: int | None = None  # model requests in all, re-asks included
    max_reasks: int = MAX_REASKS
    max_findings: int = 200
    max_output_tokens: int = 4096


@dataclass(slots=True)
class PhaseReport:
    provider: str
    model: str
    analyzers: list[str]
    budget_tokens: int
    estimated_tokens: int = 0
    files_sent: list[str] = field(default_factory=list)
    files_left_out: list[str] = field(default_factory=list)
    files_too_large: list[str] = field(default_factory=list)
    requests: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    added: int = 0
    duplicates: int = 0
    rejected: int = 0
    errors: list[str] = field(default_factory=list)

    def note(self, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(message)
        elif len(self.errors) == MAX_ERRORS:
            self.errors.append("more errors were left out")

    def as_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider, "model": self.model, "analyzers": list(self.analyzers),
            "budget_tokens": self.budget_tokens, "estimated_tokens": self.estimated_tokens,
            "files_sent": list(self.files_sent), "files_left_out": len(self.files_left_out),
            "files_too_large": list(self.files_too_large), "requests": self.requests,
            "usage": self.usage.as_dict(), "cost_usd": self.cost_usd,
            "findings_added": self.added, "duplicates_merged": self.duplicates,
            "findings_rejected": self.rejected, "errors": list(self.errors),
        }


async def run_llm_phase(provider: Provider, model: str, result: AuditResult,
                        config: SecurityConfig, options: PhaseOptions | None = None,
                        cost: Cost | None = None) -> PhaseReport:
    """Add the analyzers' findings to ``result`` (findings, chains, warnings, ``llm``)."""
    options = options or PhaseOptions()
    analyzers = select(options.analyzers)
    ranked = [rel for rel in result.file_scores if not allowlisted(rel, config.allow_paths)]
    plan = make_plan(result.root, ranked, analyzers=len(analyzers),
                     prompt_tokens=max(estimate_tokens(a.system) for a in analyzers),
                     budget=options.budget_tokens, batch_tokens=options.batch_tokens)
    report = PhaseReport(getattr(provider, "name", ""), model, [a.name for a in analyzers],
                         options.budget_tokens, plan.estimated_tokens, plan.sent,
                         plan.left_out, plan.too_large)
    found: list[Finding] = []
    try:
        for analyzer in analyzers:
            for number, batch in enumerate(plan.batches, 1):
                label = f"{analyzer.name} (batch {number}/{len(plan.batches)})"
                found += await _analyze(provider, model, analyzer, batch, label, result.findings,
                                        options, report, len(found))
    except ProviderError as exc:
        report.note(f"the provider failed, the LLM phase stopped: {exc}")
    merged = merge(result.findings, found, config)
    result.findings, result.chains = merged.findings, merged.chains
    report.added, report.duplicates = merged.added, merged.duplicates
    report.cost_usd = cost(report.usage) if cost is not None else None
    result.warnings.extend(f"llm: {e}" for e in report.errors)
    result.llm = report.as_dict()
    return report


async def _analyze(provider: Provider, model: str, analyzer: Analyzer, batch: Batch, label: str,
                   static: Sequence[Finding], options: PhaseOptions, report: PhaseReport,
                   so_far: int) -> list[Finding]:
    reasks = options.max_reasks
    if options.max_calls is not None:
        left = options.max_calls - report.requests
        if left <= 0:
            report.note(f"{label}: not run, the call limit ({options.max_calls}) was reached")
            return []
        reasks = min(reasks, left - 1)
    try:
        answer = await ask_json(provider, model, system=analyzer.system,
                                prompt=batch_message(batch, static), schema=analyzer.schema,
                                max_reasks=reasks, max_tokens=options.max_output_tokens)
    except StructuredOutputError as exc:
        report.requests += exc.attempts
        report.usage = report.usage + exc.usage
        report.note(f"{label}: {exc}")
        return []
    report.requests += answer.attempts
    report.usage = report.usage + answer.usage
    return _accept(answer.value["findings"], analyzer, batch, model, label, options, report, so_far)


def _accept(raws: list[dict[str, Any]], analyzer: Analyzer, batch: Batch, model: str, label: str,
            options: PhaseOptions, report: PhaseReport, so_far: int) -> list[Finding]:
    sent = {f.rel: f for f in batch.files}
    out: list[Finding] = []
    for raw in raws:
        if so_far + len(out) >= options.max_findings:
            report.note(f"{label}: more than {options.max_findings} findings in all; "
                        "the rest were left out")
            break
        try:
            out.append(to_finding(raw, analyzer, sent, model))
        except Rejected as exc:
            report.rejected += 1
            report.note(f"{label}: finding rejected: {exc}")
    return out
