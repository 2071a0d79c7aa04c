"""Pages beside the code model's chapters: the test execution report (``--test-report``)
and the pages active skills contribute (``skill-contributed/``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiagent.engines.wiki.pages import Page
from aiagent.engines.wiki.testpage import test_execution_page
from aiagent.engines.wiki.testrun import detect, run_tests

if TYPE_CHECKING:
    from aiagent.engines.wiki.assemble import Context
    from aiagent.engines.wiki.pipeline import Say, WikiRequest


def extra_pages(req: WikiRequest, ctx: Context, say: Say) -> list[Page]:
    pages: list[Page] = []
    if req.tests is not None:
        pages.append(_test_report(req, say))
    if req.skills:
        from aiagent.engines.wiki.skillpages import skill_pages

        contributed, problems = skill_pages(req.skills, ctx)
        for problem in problems:
            say(f"skills: {problem}")
        say(f"skills: {len(contributed)} pages from {', '.join(s.name for s in req.skills)}")
        pages += contributed
    return pages


def _test_report(req: WikiRequest, say: Say) -> Page:

    assert req.tests is not None
    runner = detect(req.root.resolve())
    if runner is not None:
        say(f"tests: running {runner.name} (time limit {req.tests.timeout:g} s)")
    result = run_tests(req.root.resolve(), req.tests)
    counts = ", ".join(f"{n} {k}" for k, n in result.counts.items() if n)
    say(f"tests: {counts or 'no results'}" + (f" ({result.note})" if result.note else ""))
    return test_execution_page(result)
