"""``testing/test-execution.md``: what ``--test-report`` ran and what came of it."""

from __future__ import annotations

import re

from aiagent.engines.wiki.pages import Page, cell, code, table
from aiagent.engines.wiki.testrun import TestResult

PATH = "testing/test-execution.md"


def fenced_text(text: str) -> str:
    """Output of the project as a code block whose fence no line of it can close."""
    longest = max((len(run) for run in re.findall("`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def test_execution_page(result: TestResult) -> Page:
    body = ["# Test execution", ""]
    if not result.runner:
        body += [f"No tests were run: {cell(result.note)}."]
        return Page(PATH, "Test execution", "\n".join(body) + "\n")
    body += [table(["", ""], _facts(result)), ""]
    if result.note:
        body += [f"**Note:** {cell(result.note)}.", ""]
    if result.counts:
        body += ["## Results", "", table(["passed", "failed", "errors", "skipped"],
                                         [[str(result.counts.get(k, 0)) for k in ("passed", "failed", "errors", "skipped")]]), ""]
    elif result.exit_code is not None:
        body += ["The runner's output held no result counts this report can read.", ""]
    if result.failures:
        body += ["## Failures", ""]
        for failure in result.failures:
            body += [f"### {cell(failure.name)}", "", fenced_text(failure.message or "(no message)"), ""]
    elif result.output_tail and (result.timed_out or (result.exit_code or 0) != 0):
        body += ["## Output (last lines)", "", fenced_text(result.output_tail), ""]
    return Page(PATH, "Test execution", "\n".join(body).rstrip() + "\n")


def _facts(result: TestResult) -> list[list[str]]:
    status = ("timed out" if result.timed_out else "not run" if result.exit_code is None
              else "passed" if result.exit_code == 0 else f"failed (exit code {result.exit_code})")
    rows = [["runner", cell(result.runner)], ["command", code(result.command)], ["status", status]]
    if result.exit_code is not None or result.timed_out:
        rows.append(["duration", f"{result.duration:.1f} s"])
    if result.sandbox:
        rows.append(["sandbox", cell(result.sandbox)])
    return rows
