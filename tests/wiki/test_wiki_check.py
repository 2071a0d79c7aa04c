"""`aiagent wiki --check`: the quality report through the real command (text and JSON, the
threshold from the flag and from config.toml, exit 1 under it), and the checks themselves
on pages with a dead link, a diagram that does not parse and one over the size limits."""

from __future__ import annotations

import json
from pathlib import Path

from test_wiki_cli import make_repo


def test_check_reports_and_passes_on_a_good_wiki(run_cli, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    out = tmp_path / "mk"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "mkdocs", "--no-model", "--no-security", "--check")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "wiki check: score 100 (minimum 80): pass", proc.stdout
    assert any(line.startswith("  links that resolve: ") and "(100.0 %)" in line for line in lines)
    assert "truth checks (model passes): none (no model ran)" in proc.stdout
    proc = run_cli("wiki", str(repo), "-o", str(out), "--format", "mkdocs", "--no-model", "--no-security",
                   "--check", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["passed"] and report["links"]["total"] > 10 and report["links"]["good"] == report["links"]["total"]
    assert report["diagrams"]["total"] >= 3 and report["symbols"]["percent"] == 100.0
    core = next(p for p in report["pages"] if p["path"] == "modules/app-core.md")
    assert core["symbols"] == core["symbols_listed"] >= 3 and core["dead_links"] == []


def big_module(root: Path) -> Path:
    make_repo(root)
    (root / "big").mkdir()
    (root / "big" / "many.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(400)))
    return root


def test_check_fails_under_the_minimum_from_the_flag_or_the_config(run_cli, clean_env, tmp_path: Path) -> None:
    repo = big_module(tmp_path / "repo")
    out = tmp_path / "wiki"
    proc = run_cli("wiki", str(repo), "-o", str(out), "--no-model", "--no-security", "--check-min", "99")
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert "FAIL" in proc.stdout.splitlines()[0]
    assert "modules/big.md: 100 of 400 public symbols not listed" in proc.stdout
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[wiki]\ncheck_min = 90\n")
    proc = run_cli("wiki", str(repo), "-o", str(out), "--no-model", "--no-security", "--check")
    assert proc.returncode == 0, proc.stdout  # score ~96: over 90
    assert "(minimum 90): pass" in proc.stdout
    (config / "config.toml").write_text("[wiki]\ncheck_min = 120\n")
    proc = run_cli("wiki", str(repo), "-o", str(out), "--no-model", "--no-security", "--check")
    assert proc.returncode == 2 and "[wiki] check_min" in proc.stderr


def test_dead_links_and_bad_diagrams_are_found(tmp_path: Path) -> None:
    from aiagent.engines.wiki.assemble import Context
    from aiagent.engines.wiki.check import check_pages, text_report
    from aiagent.engines.wiki.cluster import cluster
    from aiagent.engines.wiki.model import build_model
    from aiagent.engines.wiki.pages import Links, Page
    from aiagent.engines.wiki.scan import scan
    from aiagent.engines.wiki.steering import load_steering

    repo = make_repo(tmp_path / "repo")
    model = build_model(scan(repo, load_steering(repo)))
    ctx = Context(model, cluster(model), Links(repo, tmp_path / "out", "mkdocs"), load_steering(repo))
    ctx.links.source("a.md", "app/main.py")  # the site carries a copy of app/main.py
    big = "flowchart LR\n" + "".join(f"  n{i}[\"m{i}\"]\n" for i in range(40))
    pages = [Page("a.md", "A", "[ok](b.md) [gone](c.md) [src](source/app/main.py#L1) "
                  "[past](source/app/main.py#L999) [web](https://example.org/x)\n\n"
                  "```mermaid\nflowchart LR\n  a --> \n```\n\n```mermaid\n" + big + "```\n"),
             Page("b.md", "B", "[back](a.md#top)\n")]
    report = check_pages(ctx, pages, None, 80)
    a = report.pages[0]
    assert (a.links, a.dead_links) == (4, ["c.md", "source/app/main.py#L999"])
    assert a.diagrams == 2 and a.diagram_problems[0].startswith("does not parse")
    assert a.diagram_problems[1] == "over the size limits: more than 30 nodes"
    assert report.totals()["links"] == (3, 5)
    assert report.score < 80 and not report.passed
    assert "a.md: 2 dead links (c.md, source/app/main.py#L999); diagram does not parse" in text_report(report)
