"""Every diagram the wiki writes renders: Mermaid with the real Mermaid library in headless
Chromium, DOT with Graphviz — on the Python + JS test repository, on a repository whose
folder names are hostile to diagram syntax, and on this repository's own source."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from mermaid_render import MERMAID_JS, chromium, render_all
from test_wiki_cli import make_repo, wiki_pages

SRC = Path(__file__).resolve().parents[2] / "src" / "aiagent"
HOSTILE = ['a"b', "c]d", "e(f)", "end", "subgraph", "g;h", "i#j", "k<l>", "m`n", "o|p", "q{r}", "ünï"]


def need_mermaid() -> None:
    if chromium() is None:
        pytest.skip("needs chromium (Debian package, installed by .ci/run)")
    if not MERMAID_JS.is_file():
        pytest.skip("needs Mermaid: npm ci --prefix tests/wiki/mermaid (run by .ci/run)")


def blocks(out: Path, lang: str) -> list[str]:
    return [b for text in wiki_pages(out).values() for b in re.findall(rf"```{lang}\n(.*?)\n```", text, re.S)]


def hostile_repo(root: Path) -> Path:
    make_repo(root)
    for i, name in enumerate(HOSTILE):
        folder = root / "pkg" / name
        folder.mkdir(parents=True)
        (folder / f"m{i}.py").write_text(f"from app.core.prices import discount\n\n\ndef f{i}():\n    discount(1)\n")
    return root


def test_every_mermaid_block_renders(run_cli, tmp_path: Path) -> None:
    need_mermaid()
    found: list[str] = []
    for name, repo in (("demo", make_repo(tmp_path / "demo")), ("hostile", hostile_repo(tmp_path / "hostile"))):
        proc = run_cli("wiki", str(repo), "--no-security")
        assert proc.returncode == 0, proc.stderr
        found += blocks(repo / "docs" / "wiki", "mermaid")
        assert name != "hostile" or any("#quot;" in b for b in found)  # the quote was escaped, not dropped
    results = render_all(found)
    assert len(results) == len(found) > 5
    assert [r for r in results if r != "ok"] == []


def test_broken_mermaid_is_caught_by_the_renderer() -> None:
    need_mermaid()  # the harness must be able to fail, or the test above proves nothing
    assert render_all(['flowchart LR\n  n0[a"b]]]']) != ["ok"]


def test_the_wiki_of_this_repository_renders(run_cli, tmp_path: Path) -> None:
    need_mermaid()
    out = tmp_path / "self"
    proc = run_cli("wiki", str(SRC), "--output", str(out), "--no-security", timeout=180)
    assert proc.returncode == 0, proc.stderr
    found = blocks(out, "mermaid")
    assert len(found) > 20
    assert [r for r in render_all(found) if r != "ok"] == []
    # big graphs are clustered with drill-down pages: no diagram past about 30 nodes, 50 edges
    for block in found:
        nodes = set(re.findall(r"^\s*(n\d+)\[", block, re.M))
        edges = re.findall(r"-->|-\.->|==>", block)
        assert len(nodes) <= 30 and len(edges) <= 50, block[:300]


def test_every_dot_block_renders_with_graphviz(run_cli, tmp_path: Path) -> None:
    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("needs Graphviz `dot` (Debian graphviz, installed by .ci/run)")
    repo = hostile_repo(tmp_path / "hostile")
    proc = run_cli("wiki", str(repo), "--no-security", "--diagrams", "dot")
    assert proc.returncode == 0, proc.stderr
    found = blocks(repo / "docs" / "wiki", "dot")
    assert len(found) > 5 and not blocks(repo / "docs" / "wiki", "mermaid")
    for block in found:
        done = subprocess.run([dot, "-Tsvg"], input=block, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "<svg" in done.stdout, (block, done.stderr)
    bad = subprocess.run([dot, "-Tsvg"], input='digraph { n0 [label="x] }', capture_output=True, text=True)
    assert bad.returncode != 0
