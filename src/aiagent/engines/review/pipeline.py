"""The code review, start to end: select the diff, parse it, run the static part, then (with
an agent) the model part, merge, and return a :class:`ReviewReport` for the renderers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aiagent.engines.review.chunks import Part
from aiagent.engines.review.findings import ReviewFinding, merge
from aiagent.engines.review.gitdiff import DiffSpec, diff_text, select
from aiagent.engines.review.hunks import FileChange, parse
from aiagent.engines.review.model import (
    DEFAULT_REASKS,
    PipelineError,
    ReviewAgent,
    review_parts,
)

if TYPE_CHECKING:
    from aiagent.engines.security.defaults import SecurityDefaults

NO_MODEL_NOTE = ("no model: static part only (security rules, dependencies, secrets on the "
                 "changed lines); with a model the review also looks for bugs, performance, "
                 "maintainability and style problems and missing tests")


@dataclass(frozen=True, slots=True)
class ReviewRequest:
    cwd: Path
    spec: DiffSpec = DiffSpec()
    budget_chars: int = 60_000
    max_reasks: int = DEFAULT_REASKS
    static: bool = True
    security: SecurityDefaults | None = None  # [security] of the caller's settings


@dataclass(slots=True)
class ReviewReport:
    label: str
    root: Path
    files: list[FileChange]
    findings: list[ReviewFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    model_used: bool = False
    parts: int = 0
    reasks: int = 0
    exit_code: int = 0  # 0, or the pipeline error's code
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.files


def review(request: ReviewRequest,
           make_agent: Callable[[], ReviewAgent | None] | None = None) -> ReviewReport:
    """Run the review. ``make_agent`` gives the agent for the model part (built by the
    front-end through app.py; None: no model); it is called only when there is something
    for the model to read. ReviewInputError for a diff that cannot be read; a failed model
    part is recorded in ``errors``/``exit_code`` with the static findings still reported."""
    report, static, parts = _static_stage(request)
    agent = make_agent() if make_agent is not None and parts else None
    model: list[ReviewFinding] = []
    if agent is not None:
        model = asyncio.run(_model_part(report, agent, parts, static, request.max_reasks))
    return _finish(report, static, model, bool(parts))


async def review_async(request: ReviewRequest,
                       make_agent: Callable[[], ReviewAgent | None] | None = None
                       ) -> ReviewReport:
    """:func:`review` for a front-end with its own event loop (the TUI): the diff and the
    static part run in a worker thread, the model part on the caller's loop, so that
    cancelling the calling task stops the model at once (CancelledError is raised)."""
    report, static, parts = await asyncio.to_thread(_static_stage, request)
    agent = make_agent() if make_agent is not None and parts else None
    model: list[ReviewFinding] = []
    if agent is not None:
        model = await _model_part(report, agent, parts, static, request.max_reasks)
    return _finish(report, static, model, bool(parts))


def _static_stage(request: ReviewRequest) -> tuple[ReviewReport, list[ReviewFinding], list[Part]]:
    """Select and parse the diff, run the static part, cut the parts for the model."""
    from aiagent.engines.review.chunks import build_parts
    from aiagent.engines.review.static import new_side, run_static

    clock = time.perf_counter()
    sel = select(request.cwd, request.spec)
    files = parse(diff_text(sel))
    report = ReviewReport(sel.label, sel.root, files)
    report.timings["diff"] = time.perf_counter() - clock
    report.notes += [f"{f.path}: {f.note}, not reviewed line by line" for f in files if f.note]
    if not files:
        report.notes.append(f"the diff is empty ({sel.label}): nothing to review")
        return report, [], []
    static: list[ReviewFinding] = []
    with new_side(sel, sorted({f.path for f in files if f.status != "deleted"})) as folder:
        if request.static:
            static, warnings = run_static(sel, files, folder, request.security)
            report.notes += [f"static: {w}" for w in warnings]
        report.timings["static"] = time.perf_counter() - clock
        parts = build_parts(files, folder, request.budget_chars)
    report.parts = len(parts)
    report.timings["parts"] = time.perf_counter() - clock
    return report, static, parts


def _finish(report: ReviewReport, static: list[ReviewFinding], model: list[ReviewFinding],
            had_parts: bool) -> ReviewReport:
    if had_parts and not report.model_used:
        report.notes.append(NO_MODEL_NOTE)
    report.findings = merge(static, model)
    return report


async def _model_part(report: ReviewReport, agent: ReviewAgent, parts: list[Part],
                      static: list[ReviewFinding], max_reasks: int) -> list[ReviewFinding]:
    report.model_used = True
    try:
        outcome = await review_parts(agent, parts, report.files, label=report.label,
                                     static=static, max_reasks=max_reasks)
    except PipelineError as exc:
        report.errors.append(str(exc))
        report.exit_code = exc.exit_code
        return []
    finally:
        await agent.aclose()
    report.reasks, report.discarded = outcome.reasks, outcome.discarded
    return outcome.findings
