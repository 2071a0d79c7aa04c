"""Code review of a git diff: a static part that needs no model, and a model part on top.

    report = review(ReviewRequest(cwd, DiffSpec(range="main...HEAD")), agent)
    text = render(report, "markdown")
"""

from __future__ import annotations

from aiagent.pipelines.review.findings import ReviewFinding, gate
from aiagent.pipelines.review.gitdiff import DiffSpec, ReviewInputError
from aiagent.pipelines.review.model import PipelineError, ReviewAgent
from aiagent.pipelines.review.pipeline import ReviewReport, ReviewRequest, review, review_async

__all__ = [
    "DiffSpec", "PipelineError", "ReviewAgent", "ReviewFinding", "ReviewInputError",
    "ReviewReport", "ReviewRequest", "gate", "review", "review_async",
]
