"""``aiagent wiki`` with a model: the real command against FakeLLM on loopback. The fake
answers by what each request asks (module, synthesis or deep-dive, and which module), so the
answers fit whatever order the concurrent calls arrive in."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_wiki_cli import check_links, make_repo, mermaid_blocks, wiki_pages

from aiagent.testing import FakeLLM, Turn

FLOW = 'flowchart LR\n  cli["main.run"] -->|calls| core["prices.discount"]\n  core --> web'
SEQ = "sequenceDiagram\n  participant M as main\n  M->>P: discount(rate)\n  P-->>M: float; done"


def prompt_of(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")


def kind_of(prompt: str) -> tuple[str, str]:
    if "Summarise the module below" in prompt:
        found = re.search(r"Module: .*? \(id ([\w-]+)\)", prompt)
        return "module", found.group(1) if found else ""
    if "describe the project as a whole" in prompt:
        return "synthesis", ""
    found = re.search(r"Module: .*? \(id ([\w-]+)\)", prompt)
    return "deep", found.group(1) if found else ""


def good_answer(kind: str, mid: str) -> dict[str, Any]:
    if kind == "module":
        return {"purpose": f"The {mid} module.", "summary": f"Module {mid} is built around `discount` "
                "and `Price.total`. It reads `app/core/prices.py:11` for the rules.",
                "key_points": ["Prices come from `Price`."]}
    if kind == "synthesis":
        return {"architecture": "The entry point `run` calls `discount`. <script>alert(1)</script> "
                "[x](javascript:alert(2)) plain text.", "data_flow": "Data flows from `run` to `discount`.",
                "data_flow_diagram": FLOW,
                "key_abstractions": [{"name": "Price", "why": "Every amount is one."}],
                "design_patterns": [{"pattern": "Facade", "where": "`run` hides `discount`."}],
                "suggestions": ["Test `formatName`."]}
    return {"walkthrough": "`discount` applies the rate.", "diagram": SEQ, "pitfalls": ["Rates are floats."]}


def responder(answers: Callable[[str, str, str], Any]) -> Callable[[dict[str, Any]], Turn]:
    def answer(body: dict[str, Any]) -> Turn:
        prompt = prompt_of(body)
        kind, mid = kind_of(prompt)
        value = answers(kind, mid, prompt)
        return Turn(text=value if isinstance(value, str) else json.dumps(value), usage=(1000, 100))
    return answer


def fake_env(fake: FakeLLM) -> dict[str, str]:
    return {"OPENAI_BASE_URL": fake.url + "/v1", "OPENAI_API_KEY": "sk-test-123"}


def run_wiki(run_cli: Any, fake: FakeLLM, repo: Path, *args: str) -> Any:
    return run_cli("wiki", str(repo), "--no-security", "--provider", "openai", "--model", "gpt-4o",
                   *args, env=fake_env(fake), timeout=120)


def kinds(fake: FakeLLM) -> list[tuple[str, str]]:
    return [kind_of(prompt_of(r["json"])) for r in fake.requests]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "demo")


def test_full_multi_pass_run(run_cli: Any, repo: Path) -> None:
    with FakeLLM(responder=responder(lambda k, m, p: good_answer(k, m))) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "deep", "--concurrency", "4")
    assert proc.returncode == 0, proc.stderr
    asked = kinds(fake)
    modules = sorted(m for k, m in asked if k == "module")
    assert modules == ["app", "app-core", "tests", "web"]
    assert [k for k, _ in asked].count("synthesis") == 1 and 1 <= [k for k, _ in asked].count("deep") <= 3
    # bottom-up: app-core (a leaf) is summarised before app, which imports it
    order = [m for k, m in asked if k == "module"]
    assert order.index("app-core") < order.index("app")
    app_prompt = next(prompt_of(r["json"]) for r in fake.requests if kind_of(prompt_of(r["json"])) == ("module", "app"))
    assert "Module app-core is built around" in app_prompt  # the leaf's summary went up
    out = repo / "docs" / "wiki"
    pages = wiki_pages(out)
    core = pages["modules/app-core.md"]
    assert "## Summary" in core and "`discount`" in core and "`Price.total`" in core
    assert "[app/core/prices.py:11](../../../app/core/prices.py#L11)" in core
    assert "## Deep dive" in "".join(pages.values())
    assert "The app-core module." in pages["modules/index.md"]
    index = pages["index.md"]
    assert "## How it fits together" in index and "<script>" not in index
    assert not re.search(r"(?<!\\)\]\(javascript", index)  # an escaped \] is text, not a link
    assert "&lt;script&gt;" in index
    for page in ("architecture/data-flow.md", "code-structure/design-patterns.md", "suggestions/improvements.md"):
        assert page in pages
    assert "sequenceDiagram" in "".join(mermaid_blocks(pages))
    assert check_links(out, pages) > 10
    assert re.search(r"wiki: model: \d+ calls, \d+ input \+ \d+ output tokens, \$\d+\.\d{4}", proc.stderr)
    assert "wiki: modules: 1/4 done" in proc.stderr and "wiki: modules: 4/4 done" in proc.stderr  # progress
    assert re.search(r"wiki: [\d,]+ tokens, \$\d+\.\d{4}\n", proc.stderr)  # the progress' closing usage line
    manifest = json.loads((out / ".aiagent-wiki.json").read_text())
    assert manifest["prompts"].startswith("model-") and set(manifest["analysis"]["modules"]) == set(modules)
    assert manifest["model_report"]["calls"] == len(fake.requests)
    assert manifest["model_report"]["largest_briefing_chars"] <= 24000


def test_no_key_means_the_static_wiki_and_one_note(run_cli: Any, repo: Path) -> None:
    proc = run_cli("wiki", str(repo), "--no-security", env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert proc.returncode == 0, proc.stderr
    notes = [ln for ln in proc.stderr.splitlines() if "a model would add" in ln]
    assert len(notes) == 1 and "static wiki only" in notes[0]
    pages = wiki_pages(repo / "docs" / "wiki")
    assert "## Summary" not in pages["modules/app-core.md"] and "suggestions/improvements.md" not in pages


def test_an_invented_name_is_fixed_by_one_reask_or_removed(run_cli: Any, repo: Path) -> None:
    def answers(kind: str, mid: str, prompt: str) -> Any:
        value = good_answer(kind, mid)
        if kind == "module" and mid == "app-core":
            value["summary"] = "It computes prices. The helper `compute_magic_total` rounds them."
        if kind == "module" and mid == "web":
            fixed = "Your answer had problems" in prompt
            value["summary"] = "It formats names with `formatName`." + ("" if fixed else " See `renderWidget`.")
        return value

    with FakeLLM(responder=responder(answers)) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "quick")
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    core, web = pages["modules/app-core.md"], pages["modules/web.md"]
    assert "compute_magic_total" not in core and "It computes prices." in core
    assert "renderWidget" not in web and "`formatName`" in web
    assert "wiki: truth: 2 unknown names (1 fixed by a re-ask, 1 removed)" in proc.stderr
    fixes = [r for r in fake.requests if "Your answer had problems" in prompt_of(r["json"])]
    assert len(fixes) == 2 and "compute_magic_total" in prompt_of(fixes[0]["json"]) + prompt_of(fixes[1]["json"])
    truth = json.loads((repo / "docs" / "wiki" / ".aiagent-wiki.json").read_text())["model_report"]["truth"]
    assert truth["unknown_names"] == 2 and truth["removed"] == 1 and truth["fixed_by_reask"] == 1


def test_a_broken_mermaid_block_is_reasked_then_dropped(run_cli: Any, repo: Path) -> None:
    def answers(kind: str, mid: str, prompt: str) -> Any:
        value = good_answer(kind, mid)
        if kind == "synthesis":
            value["data_flow_diagram"] = 'flowchart LR\n  a["x"]]] --> b\n  click a "javascript:alert(1)"'
        return value

    with FakeLLM(responder=responder(answers)) as fake:
        proc = run_wiki(run_cli, fake, repo)
    assert proc.returncode == 0, proc.stderr
    synth = [r for r in fake.requests if kind_of(prompt_of(r["json"]))[0] == "synthesis"]
    assert len(synth) == 2 and "invalid diagram" in prompt_of(synth[1]["json"])
    flow = wiki_pages(repo / "docs" / "wiki")["architecture/data-flow.md"]
    assert "```mermaid" not in flow and "javascript" not in flow and "Data flows from" in flow
    assert "1 invalid diagrams dropped" in proc.stderr


def test_invalid_json_is_reasked_then_the_module_stays_static(run_cli: Any, repo: Path) -> None:
    def answers(kind: str, mid: str, prompt: str) -> Any:
        if kind == "module" and mid == "web":
            return "Sure! Here is the summary: {purpose: web"
        return good_answer(kind, mid)

    with FakeLLM(responder=responder(answers)) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "quick")
    assert proc.returncode == 0, proc.stderr
    web_calls = [r for r in fake.requests if kind_of(prompt_of(r["json"])) == ("module", "web")]
    assert len(web_calls) == 3  # the first answer and two re-asks (max_reasks = 2)
    assert "kept static): web" in proc.stderr
    pages = wiki_pages(repo / "docs" / "wiki")
    assert "## Summary" not in pages["modules/web.md"] and "`formatName`" in pages["modules/web.md"]
    assert "## Summary" in pages["modules/app-core.md"]


def test_context_limit_is_one_error_and_no_wiki(run_cli: Any, repo: Path) -> None:
    def answers(kind: str, mid: str, prompt: str) -> Any:
        return good_answer(kind, mid)

    too_big = Turn(status=400, error_message="This model's maximum context length is 8192 tokens. "
                   "However, your messages resulted in 9000 tokens.")
    with FakeLLM(responder=lambda body: too_big) as fake:
        proc = run_wiki(run_cli, fake, repo)
    assert proc.returncode == 3, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("aiagent: error:")]
    assert len(errors) == 1 and "context" in errors[0] and "no wiki was written" in errors[0]
    assert "Traceback" not in proc.stderr and not (repo / "docs").exists()
    with FakeLLM(responder=responder(answers)) as fake:  # the same project with a working model
        assert run_wiki(run_cli, fake, repo).returncode == 0


def test_incremental_only_the_changed_module_is_reanalysed(run_cli: Any, repo: Path) -> None:
    with FakeLLM(responder=responder(lambda k, m, p: good_answer(k, m))) as fake:
        assert run_wiki(run_cli, fake, repo, "--depth", "quick").returncode == 0
        first = len(fake.requests)
        util = repo / "web" / "util.js"
        util.write_text(util.read_text().replace("${last}", "${last}!"))
        proc = run_wiki(run_cli, fake, repo, "--depth", "quick")
        assert proc.returncode == 0, proc.stderr
        again = kinds(fake)[first:]
        assert again == [("module", "web")]
        assert "wiki: model: analysed 1 modules; reused 3 stored summaries" in proc.stderr
        assert "## Summary" in wiki_pages(repo / "docs" / "wiki")["modules/app-core.md"]  # reused, still there
        before = len(fake.requests)
        assert run_wiki(run_cli, fake, repo, "--depth", "quick", "--full").returncode == 0
        assert len(fake.requests) - before == 4


def test_model_diagrams_render_and_the_site_builds_strict(run_cli: Any, repo: Path, tmp_path: Path) -> None:
    import subprocess

    from mermaid_render import MERMAID_JS, chromium, render_all
    from test_wiki_cli import MKDOCS

    hostile = 'flowchart TD\n  a["say #quot;hi#quot; ; end"] --> b(subgraph)\n  b --> c{"x|y"}'
    def answers(kind: str, mid: str, prompt: str) -> Any:
        value = good_answer(kind, mid)
        if kind == "deep":
            value["diagram"] = SEQ + "\n  loop every <b>item</b>\n    M->>P: a:b#c\n  end"
        if kind == "synthesis":
            value["data_flow_diagram"] = hostile
        return value

    out = tmp_path / "site"
    with FakeLLM(responder=responder(answers)) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "deep", "--format", "mkdocs", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "0 invalid diagrams dropped" in proc.stderr
    built = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(tmp_path / "html")],
                           cwd=out, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    html = "".join(p.read_text() for p in (tmp_path / "html").rglob("*.html"))
    assert "<script>alert(1)" not in html and 'href="javascript:' not in html and "<b>item" not in html
    if chromium() is None or not MERMAID_JS.is_file():
        pytest.skip("needs chromium and Mermaid (npm ci --prefix tests/wiki/mermaid, run by .ci/run)")
    blocks = mermaid_blocks(wiki_pages(out / "docs"))
    assert any("sequenceDiagram" in b for b in blocks) and len(blocks) > 5
    assert [r for r in render_all(blocks) if r != "ok"] == []


def test_briefings_stay_bounded_on_a_large_project() -> None:
    from aiagent.engines.wiki.assemble import Context
    from aiagent.engines.wiki.briefing import (
        config,
        deep_briefing,
        module_briefing,
        synthesis_briefing,
    )
    from aiagent.engines.wiki.cluster import cluster
    from aiagent.engines.wiki.model import build_model
    from aiagent.engines.wiki.pages import Links
    from aiagent.engines.wiki.scan import scan
    from aiagent.engines.wiki.steering import Steering

    src = Path(__file__).resolve().parents[2] / "src" / "aiagent"
    model = build_model(scan(src, Steering()))
    assert model.total_lines > 40_000  # big enough to overflow a context if sent whole
    ctx = Context(model, cluster(model), Links(src, src / "docs"), Steering())
    bound = int(config()["briefing"]["max_chars"])
    long_summary = "word " * 5000
    summaries = {m.id: long_summary for m in ctx.modules}
    sizes = [len(module_briefing(ctx, m, summaries)) for m in ctx.modules]
    sizes += [len(synthesis_briefing(ctx, summaries))]
    sizes += [len(deep_briefing(ctx, m, long_summary)) for m in ctx.modules[:5]]
    assert max(sizes) <= bound
    assert max(sizes) > bound // 2  # the bound is what cuts, not a small project
