"""Code review of a git diff: a static part that needs no model, and a model part on top.

    report = review(ReviewRequest(cwd, DiffSpec(range="main...HEAD")), agent)
    text = render(report, "markdown")
"""

from __future__ import annotations

from aiagent.engines.review.findings import ReviewFinding, gate
from aiagent.engines.review.gitdiff import DiffSpec, ReviewInputError
from aiagent.engines.review.model import PipelineError, ReviewAgent
from aiagent.engines.review.pipeline import ReviewReport, ReviewRequest, review, review_async

__all__ = [
    "DiffSpec", "PipelineError", "ReviewAgent", "ReviewFinding", "ReviewInputError",
    "ReviewReport", "ReviewRequest", "gate", "review", "review_async",
]
