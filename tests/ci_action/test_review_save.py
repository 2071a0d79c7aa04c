"""``--save FORMAT=PATH`` of ``--mode code-review`` on its own: bad values are one-line usage
errors before any review, an unwritable path is an error that still prints the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from ci_helpers import make_pr_repo


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return make_pr_repo(tmp_path / "pr")


@pytest.mark.parametrize("value", ["sarif", "xml=out.xml", "sarif=", "=out.sarif"])
def test_bad_save_values(run_cli, work: Path, value: str) -> None:
    proc = run_cli("--headless", "--mode", "code-review", "--base", "origin/main",
                   "--save", value, cwd=work)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"aiagent: error: --save {value!r}: expected FORMAT=PATH, FORMAT one of json, "
        "markdown, sarif, counts, codequality"]


def test_save_needs_code_review(run_cli, tmp_path: Path) -> None:
    proc = run_cli("--headless", "--save", "json=x.json", "-p", "hi", cwd=tmp_path)
    assert proc.returncode == 2 and "--save needs --mode code-review" in proc.stderr


def test_saves_and_an_unwritable_one(run_cli, work: Path, tmp_path: Path) -> None:
    counts, missing = tmp_path / "counts.txt", tmp_path / "no" / "such" / "r.json"
    proc = run_cli("--headless", "--mode", "code-review", "--base", "origin/main",
                   "--save", f"counts={counts}", "--save", f"json={missing}", "-o", "markdown",
                   cwd=work)
    assert proc.returncode == 2, proc.stderr  # the failed --save, not the (absent) gate
    assert "## aiagent code review" in proc.stdout  # the report is still printed
    assert f"aiagent: error: --save json={missing}: No such file or directory" in proc.stderr
    assert counts.read_text().splitlines() == [
        "findings=1", "critical=0", "high=1", "medium=0", "low=0", "info=0", "gate=passed"]
