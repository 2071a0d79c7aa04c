"""bench/bench_wiki_rubric.py: CodeWikiBench's rubric method on a wiki, the judge answered by
FakeLLM on loopback through aiagent's own provider path. The weighted aggregation is checked
to the decimal (ignoring the weights gives another figure); a hostile judge (garbage, a huge
answer) is re-asked a bounded number of times and then counted as not documented."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiagent.testing import FakeLLM, Turn

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bench_wiki_rubric.py"

RUBRIC = {"rubrics": [
    {"requirements": "Parsing", "weight": 3, "sub_tasks": [
        {"requirements": "The parser reads tokens", "weight": 3},
        {"requirements": "The cache is evicted", "weight": 1}]},
    {"requirements": "Configuration", "weight": 1, "sub_tasks": [
        {"requirements": "Config is loaded from TOML", "weight": 1},
        {"requirements": "Plugins are hot-reloaded", "weight": 1},
        {"requirements": "Logging levels are set per module", "weight": 3},
        {"requirements": "Secrets are rotated", "weight": 1}]},
    {"requirements": "Command-line usage", "weight": 2}]}
COVERED = {"The parser reads tokens", "Config is loaded from TOML", "Logging levels are set per module",
           "Command-line usage"}
HUGE = "x" * 300_000 + '{"score": 1, "reasoning": "trust me"}'


def yes_no(requirement: str) -> str:
    score = 1 if requirement in COVERED else 0
    return "Sure.\n```json\n" + json.dumps({"score": score, "reasoning": "seen", "evidence": "p"}) + "\n```"


def responder(asked: list[str]) -> Any:
    def answer(body: dict[str, Any]) -> Turn:
        text = "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "user")
        found = re.search(r"^Requirement: (.*)$", text, re.M)
        requirement = found.group(1) if found else ""
        asked.append(requirement)
        if requirement == "Plugins are hot-reloaded":
            return Turn(text="I cannot decide }{ [score] maybe")
        if requirement == "Secrets are rotated":
            return Turn(text=HUGE)  # a valid object inside, but far over the bound
        if requirement == "Logging levels are set per module" and asked.count(requirement) == 1:
            return Turn(text=HUGE)  # huge once, then a proper answer
        return Turn(text=yes_no(requirement))
    return answer


def write_inputs(tmp: Path) -> tuple[Path, Path]:
    wiki = tmp / "wiki"
    (wiki / "modules").mkdir(parents=True)
    (wiki / "index.md").write_text("# Demo\n\n## Parsing\nThe parser reads tokens one by one.\n")
    (wiki / "modules" / "config.md").write_text("# Config\n\nLoaded from `config.toml`.\n")
    rubric = tmp / "rubric.json"
    rubric.write_text(json.dumps(RUBRIC))
    return rubric, wiki


def run(env: dict[str, str], tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_scores_aggregate_by_weight_and_a_hostile_judge_counts_as_missing(clean_env, tmp_path: Path) -> None:
    rubric, wiki = write_inputs(tmp_path)
    asked: list[str] = []
    with FakeLLM(responder=responder(asked)) as fake:
        env = {**clean_env, "OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-123"}
        proc = run(env, tmp_path, str(rubric), str(wiki), "--provider", "openai", "--model", "gpt-4o",
                   "--json", "--out", str(tmp_path / "scored.json"), "--retries", "2")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    # Parsing 0.75 (3·1 + 1·0)/4; Configuration (1·1 + 1·0 + 3·1 + 1·0)/6; usage 1;
    # overall (3·0.75 + 1·4/6 + 2·1)/6 = 0.8194… (without weights: 0.7222…)
    assert [t["score"] for t in result["top"]] == [75.0, 66.7, 100.0]
    assert result["overall"] == 81.9
    assert (result["leaves"], result["documented"], result["unjudged"]) == (7, 4, 2)
    assert result["published"] == {"CodeWiki (published)": 68.8, "DeepWiki (published)": 64.1}
    # bounded: one ask and two re-asks for each hostile leaf, one re-ask after one huge answer
    assert asked.count("Plugins are hot-reloaded") == 3 and asked.count("Secrets are rotated") == 3
    assert asked.count("Logging levels are set per module") == 2 and len(asked) == 12
    scored = json.loads((tmp_path / "scored.json").read_text())
    secrets = scored[1]["sub_tasks"][3]
    assert secrets["score"] == 0 and secrets["judged"] is False
    plugins = scored[1]["sub_tasks"][1]  # the unusable answer is kept (its start) for the reader
    assert plugins["reasoning"] == "the answer was not the asked JSON: I cannot decide }{ [score] maybe"
    assert scored[2]["judged"] is True and scored[2]["score"] == 1


def test_the_judge_sees_the_pages_and_the_requirement_context(clean_env, tmp_path: Path) -> None:
    rubric, wiki = write_inputs(tmp_path)
    with FakeLLM(responder=responder([])) as fake:
        env = {**clean_env, "OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-123"}
        proc = run(env, tmp_path, str(rubric), str(wiki), "--provider", "openai", "--model", "gpt-4o")
        bodies = [r["json"] for r in fake.requests]
    assert proc.returncode == 0, proc.stderr
    assert "81.9%  overall" in proc.stdout and "68.8%  CodeWiki (published)" in proc.stdout
    assert "64.1%  DeepWiki (published)" in proc.stdout
    # this leaf's own request (the judge runs leaves concurrently: any order)
    first = next(json.dumps(b) for b in bodies if "Requirement: The parser reads tokens" in json.dumps(b))
    assert "one by one" in first and "modules/config.md" in first and "(Under: Parsing)" in first


def test_without_a_key_it_says_so_in_one_line(clean_env, tmp_path: Path) -> None:
    rubric, wiki = write_inputs(tmp_path)
    proc = run(clean_env, tmp_path, str(rubric), str(wiki), "--provider", "openai")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "no usable model for the judge" in proc.stderr


def test_a_judge_that_never_answers_gives_no_figure(clean_env, tmp_path: Path) -> None:
    import socket

    rubric, wiki = write_inputs(tmp_path)
    with socket.socket() as sock:  # a loopback port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**clean_env, "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "sk-test-123"}
    proc = run(env, tmp_path, str(rubric), str(wiki), "--provider", "openai", "--model", "m", "--retries", "0")
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.count("\n") == 1 and "the judge answered none of the 7 requirements" in proc.stderr


def test_a_bad_rubric_is_one_line(clean_env, tmp_path: Path) -> None:
    rubric, wiki = write_inputs(tmp_path)
    rubric.write_text(json.dumps({"rubrics": [{"requirements": "A", "weight": "heavy"}]}))
    proc = run(clean_env, tmp_path, str(rubric), str(wiki), "--provider", "openai")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "weight" in proc.stderr


def bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_wiki_rubric", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_wiki_rubric", module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_a_large_wiki_gives_the_judge_the_matching_pages_within_the_budget() -> None:
    b = bench()
    pages = [b.Page(f"p{i}.md", f"# Page {i}\n" + "filler words here " * 400, frozenset({"filler", "words"}))
             for i in range(20)]
    pages.append(b.Page("zz.md", "# Eviction\nThe cache eviction policy is LRU.", frozenset({"cache", "eviction"})))
    docs = b.documentation(pages, "Caching > cache eviction", 6000)
    assert len(docs) <= 6000 and "=== zz.md ===" in docs and docs.index("zz.md ===") < docs.index("p0.md ===")
    assert "- p19.md" in docs  # the outline lists every page


def test_verdict_accepts_only_a_bounded_zero_or_one() -> None:
    b = bench()
    assert b.verdict('{"score": 1}') == (1, "") and b.verdict('x {"score": 0, "reasoning": "no"} y') == (0, "no")
    assert b.verdict('{"score": 2}') is None and b.verdict('{"score": true}') is None
    assert b.verdict("garbage") is None and b.verdict(HUGE) is None
