"""`aiagent batch --llm` on the local engine, FakeLLM on loopback as the model: the model
calls of all worker processes share one limit (concurrency, pace) and one budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.batch.conftest import VULNERABLE, make_folder, run_cli
from tests.batch.llm_helpers import CALL_COST, MODEL_ARGS, Meter, fake_env, review_repos

from aiagent.testing import FakeLLM


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def _batch(job: str, listed: Path, out: Path, fake: FakeLLM, *args: str, python: str | None = None):
    return run_cli("batch", job, "--repos", str(listed), "--out", str(out), "--workers", "3",
                   *MODEL_ARGS, *args, env=fake_env(fake), python=python, timeout=600)


def check_concurrency(tmp_path: Path, limit: int, *args: str, python: str | None = None) -> None:
    """Three code reviews in three worker processes; the server sees at most ``limit``
    requests at once, and reaches ``limit`` (each request is held 0.4 s, and until ``limit``
    were in flight once)."""
    listed = review_repos(tmp_path, 3)
    meter = Meter(hold=0.4, gather=limit)
    with FakeLLM(responder=meter) as fake:
        done = _batch("code-review", listed, tmp_path / "out", fake, "--llm-concurrency", str(limit),
                      *args, python=python)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = _summary(tmp_path / "out")
    assert len(fake.requests) == 3 and summary["llm"]["calls"] == 3
    assert meter.peak == limit and summary["llm"]["peak_in_flight"] == limit
    assert summary["cost"] == pytest.approx(3 * CALL_COST)
    assert [r["cost"] for r in summary["repositories"]] == pytest.approx([CALL_COST] * 3)
    assert all(r["model_calls"] == 1 for r in summary["repositories"])


def check_budget(tmp_path: Path, *args: str, python: str | None = None) -> None:
    """A wiki batch with a budget of less than two calls: two calls are made (the second
    starts while less than the budget is spent), then none; every task keeps its static
    wiki and says why."""
    listed = review_repos(tmp_path, 3)
    meter = Meter(hold=0.05)
    with FakeLLM(responder=meter) as fake:
        done = _batch("wiki", listed, tmp_path / "out", fake, "--llm-concurrency", "1",
                      "--max-cost", str(1.7 * CALL_COST), *args, python=python)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = _summary(tmp_path / "out")
    assert len(fake.requests) == 2 and meter.peak == 1
    assert summary["llm"]["calls"] == 2 and summary["llm"]["refused"] >= 1
    assert summary["cost"] == pytest.approx(2 * CALL_COST) == summary["llm"]["cost"]
    assert sum(r["model_calls"] for r in summary["repositories"]) == 2
    reasons = {r["reason"] for r in summary["repositories"]}
    assert reasons == {"budget reached: the model part stopped, the static results are kept"}
    assert summary["done"] == 3 and len(summary["degraded"]) == 3
    for repo in summary["repositories"]:
        assert (tmp_path / "out" / "repos" / repo["repository"] / "wiki" / "index.md").is_file()
    assert "## Static only" in (tmp_path / "out" / "summary.md").read_text()


@pytest.mark.parametrize("limit", [1, 2])
def test_model_calls_in_flight_are_limited_across_workers(tmp_path: Path, home: Path, limit: int) -> None:
    check_concurrency(tmp_path, limit)


def test_a_budget_stops_new_model_calls_and_a_rerun_does_those_tasks_again(tmp_path: Path, home: Path) -> None:
    check_budget(tmp_path)
    listed, out = tmp_path / "repos.txt", tmp_path / "out"
    with FakeLLM(responder=Meter(hold=0.0)) as fake:
        again = _batch("wiki", listed, out, fake)
    assert again.returncode == 0, again.stderr[-3000:]
    summary = _summary(out)
    assert summary["skipped_as_done_before"] == 0 and summary["degraded"] == []
    assert all(r["model_calls"] >= 2 for r in summary["repositories"])
    with FakeLLM(responder=Meter(hold=0.0)) as fake:
        third = _batch("wiki", listed, out, fake)
    assert _summary(out)["skipped_as_done_before"] == 3 and not fake.requests, third.stderr[-2000:]


def test_the_rate_paces_the_calls_of_all_workers(tmp_path: Path, home: Path) -> None:
    listed = review_repos(tmp_path, 3)
    with FakeLLM(responder=Meter(hold=0.0)) as fake:
        done = _batch("code-review", listed, tmp_path / "out", fake, "--llm-rate", "60")
    assert done.returncode == 0, done.stderr[-3000:]
    starts = sorted(r["time"] for r in fake.requests)
    assert len(starts) == 3
    assert min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= 0.9  # 60 a minute


def test_wiki_with_a_model_has_the_model_summaries(tmp_path: Path, home: Path) -> None:
    listed = review_repos(tmp_path, 1)
    with FakeLLM(responder=Meter(hold=0.0)) as fake:
        done = _batch("wiki", listed, tmp_path / "out", fake)
    assert done.returncode == 0, done.stderr[-3000:]
    repo = _summary(tmp_path / "out")["repositories"][0]
    assert repo["reason"] == "" and repo["model_calls"] == len(fake.requests) >= 2
    pages = (tmp_path / "out" / "repos" / repo["repository"] / "wiki").rglob("*.md")
    assert any("(model)" in page.read_text() for page in pages)


def test_security_audit_llm_phase_runs_per_repository(tmp_path: Path, home: Path) -> None:
    for name in ("a", "b"):
        make_folder(tmp_path / name, {"app.py": VULNERABLE})
    (tmp_path / "repos.txt").write_text("a\nb\n")
    with FakeLLM(responder=Meter(hold=0.0)) as fake:
        done = _batch("security-audit", tmp_path / "repos.txt", tmp_path / "out", fake)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = _summary(tmp_path / "out")
    assert len(fake.requests) >= 2 and summary["llm"]["calls"] == len(fake.requests)
    for repo in summary["repositories"]:
        report = json.loads((tmp_path / "out" / "repos" / repo["repository"] / "security-audit.json").read_text())
        assert report["llm"]["model"] == "gpt-4o" and repo["cost"] > 0


def test_llm_without_a_model_is_one_line_and_exit_3(tmp_path: Path, home: Path) -> None:
    make_folder(tmp_path / "a", {"app.py": VULNERABLE})
    (tmp_path / "repos.txt").write_text("a\n")
    done = run_cli("batch", "wiki", "--repos", str(tmp_path / "repos.txt"), "--out", str(tmp_path / "out"),
                   "--llm", env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "OLLAMA_HOST": "127.0.0.1:9",
                                 "OPENAI_BASE_URL": "", "ANTHROPIC_BASE_URL": ""})
    assert done.returncode == 3
    assert done.stderr.strip().startswith("aiagent: error: --llm needs a model: ")
    assert "\n" not in done.stderr.strip() and not (tmp_path / "out").exists()


def test_a_budget_needs_a_known_price_and_the_llm_flags_need_llm(tmp_path: Path, home: Path) -> None:
    make_folder(tmp_path / "a", {"app.py": VULNERABLE})
    (tmp_path / "repos.txt").write_text("a\n")
    base = ("batch", "wiki", "--repos", str(tmp_path / "repos.txt"), "--out", str(tmp_path / "out"))
    unknown = run_cli(*base, "--llm", "--provider", "openai", "--model", "no-such-model", "--max-cost", "1",
                      env={"OPENAI_API_KEY": "sk-test-123"})
    assert unknown.returncode == 2 and "--max-cost: no price is known for no-such-model" in unknown.stderr
    alone = run_cli(*base, "--max-cost", "1")
    assert alone.returncode == 2 and "need --llm" in alone.stderr
