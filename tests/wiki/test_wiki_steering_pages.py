"""Steering-file pages (``pages:`` in ``.agent/wiki.yaml``) through the real ``aiagent wiki``:
a placeholder that says why without a model; with FakeLLM on loopback, written from a bounded
briefing carrying their instructions, invented names fixed by a re-ask, an invalid answer
left as a placeholder beside a good page, reused on an unchanged re-run."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_wiki_cli import MKDOCS, check_links, make_repo, wiki_pages
from test_wiki_model_passes import good_answer, kind_of, prompt_of, run_wiki

from aiagent.testing import FakeLLM, Turn

STEERING = """audience: new contributors
notes: [Prices are in cents.]
pages:
  - title: Getting started
    instructions: Explain how a request reaches `discount`, step by step.
  - title: "Deploy <b>now</b> | [x](javascript:alert(1))"
    instructions: "Describe deployment. <script>alert(2)</script>"
"""
GOOD = "guides/getting-started.md"
BAD = "guides/deploy-b-now-b-x-javascript-alert-1.md"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "demo")
    (root / ".agent").mkdir()
    (root / ".agent" / "wiki.yaml").write_text(STEERING)
    return root


def page_title(prompt: str) -> str | None:
    if "Write the wiki page described below" not in prompt:
        return None
    found = re.search(r"Page title: (.*)", prompt)
    return found.group(1) if found else ""


def answer(body: dict[str, Any]) -> Turn:
    prompt = prompt_of(body)
    title = page_title(prompt)
    if title is None:
        return Turn(text=json.dumps(good_answer(*kind_of(prompt))), usage=(1000, 100))
    if title.startswith("Deploy"):
        return Turn(text="not JSON at all", usage=(1000, 100))
    if "is not a name in the code" in prompt:  # the re-ask after the invented name
        value = {"body": "A request starts in `run`, which calls `discount` in `app/core/prices.py:11`.",
                 "key_points": ["Amounts are `Price` objects."], "diagram": 'flowchart LR\n  a["run"] --> b["discount"]'}
    else:
        value = {"body": "A request starts in `run`, then `launchRockets` applies `discount`.", "key_points": []}
    return Turn(text=json.dumps(value), usage=(1000, 100))


def page_prompts(fake: FakeLLM) -> list[str]:
    return [p for r in fake.requests if page_title(p := prompt_of(r["json"])) is not None]


def test_without_a_model_each_page_is_a_placeholder_in_the_nav(run_cli: Any, repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    proc = run_cli("wiki", str(repo), "--no-security", "--format", "mkdocs", "--output", str(out),
                   env={"OLLAMA_HOST": "127.0.0.1:9"})
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(out / "docs")
    good = pages[GOOD]
    assert good.startswith("# Getting started\n") and "no model was configured for this run" in good
    assert "Explain how a request reaches \\`discount\\`, step by step." in good
    bad = pages[BAD]
    assert "<b>" not in bad and "<script>" not in bad and "&lt;script&gt;" in bad
    assert not re.search(r"(?<!\\)\]\(javascript", bad)
    assert "## Guides" in pages["index.md"] and "(guides/getting-started.md)" in pages["index.md"]
    nav = (out / "mkdocs.yml").read_text()
    assert "Guides:" in nav and GOOD in nav and BAD in nav
    check_links(out / "docs", pages)
    built = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(tmp_path / "html")],
                           cwd=out, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "html" / "guides" / "getting-started" / "index.html").is_file()


def test_with_a_model_the_pages_are_written_checked_and_reused(run_cli: Any, repo: Path) -> None:
    with FakeLLM(responder=answer) as fake:
        proc = run_wiki(run_cli, fake, repo, "--depth", "quick")
    assert proc.returncode == 0, proc.stderr
    asked = page_prompts(fake)
    first = [p for p in asked if "is not a name in the code" not in p]
    getting_calls = [p for p in first if "Page title: Getting started" in p]
    assert len(getting_calls) == 1  # one call, then one truth re-ask
    assert len(first) - 1 == 3  # the invalid one: the first ask and its two JSON re-asks (analysis.toml)
    getting = getting_calls[0]
    assert "Instructions from the steering file: Explain how a request reaches `discount`" in getting
    assert "Audience: new contributors" in getting and "Note to respect: Prices are in cents." in getting
    assert "Module app-core is built around" in getting  # the module summaries came first
    assert len(getting) < 30000
    assert any("`launchRockets` is not a name in the code" in p for p in asked)  # the re-ask
    out = repo / "docs" / "wiki"
    pages = wiki_pages(out)
    good = pages[GOOD]
    assert "_Written by a model" in good and "`discount`" in good and "launchRockets" not in good
    assert "[app/core/prices.py:11](../../../app/core/prices.py#L11)" in good
    assert "```mermaid\nflowchart LR" in good and "`Price`" in good
    assert "gave no valid answer" in pages[BAD] and "Describe deployment." in pages[BAD]
    assert re.search(r"truth: [1-9]\d* unknown names \([1-9]\d* fixed by a re-ask", proc.stderr)
    assert "page guides/deploy" in proc.stderr  # reported as kept static
    check_links(out, pages)
    manifest = json.loads((out / ".aiagent-wiki.json").read_text())
    assert set(manifest["analysis"]["pages"]) == {GOOD}

    with FakeLLM(responder=answer) as again:
        proc = run_wiki(run_cli, again, repo, "--depth", "quick")
    assert proc.returncode == 0, proc.stderr
    assert [page_title(p) for p in page_prompts(again)] == [BAD_TITLE] * len(page_prompts(again))
    assert "`discount`" in wiki_pages(out)[GOOD]  # the stored answer, no new call

    steering = repo / ".agent" / "wiki.yaml"
    steering.write_text(STEERING.replace("step by step.", "in three steps."))
    with FakeLLM(responder=answer) as changed:
        proc = run_wiki(run_cli, changed, repo, "--depth", "quick")
    assert proc.returncode == 0, proc.stderr
    assert any("in three steps." in p for p in page_prompts(changed))


BAD_TITLE = '"Deploy <b>now</b> | [x](javascript:alert(1))"'.strip('"')
