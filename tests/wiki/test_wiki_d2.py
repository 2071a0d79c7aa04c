"""``--diagrams d2``: D2 written from the same typed graphs as Mermaid and DOT, names escaped.
Every D2 block of the test wikis (Python + JS, hostile folder names, examples/ios-app, a
Package.swift project) and the model's diagrams rewritten as D2 are compiled and rendered
with the real D2 (WebAssembly build from npm, under Node)."""

from __future__ import annotations

from pathlib import Path

import pytest
from d2_render import D2_JS, node, render_all
from test_wiki_cli import make_repo
from test_wiki_diagrams import HOSTILE, blocks, hostile_repo
from test_wiki_xcode import ios_app, package_only

from aiagent.engines.wiki.diagrams import Graph, to_d2
from aiagent.engines.wiki.modeldiagrams import fenced_text, parse


def need_d2() -> None:
    if node() is None:
        pytest.skip("needs node (Debian nodejs, used by .ci/run for npm)")
    if not D2_JS.is_file():
        pytest.skip("needs D2: npm ci --prefix tests/wiki/d2 (run by .ci/run)")


def test_d2_golden() -> None:
    graph = Graph("g")
    graph.add_node("a", 'say "hi" $x', "grp")
    graph.add_node("b", "back\\slash")
    graph.add_node("c", "plain")
    graph.add_edge("a", "b", 3)
    graph.add_edge("b", "c")
    assert to_d2(graph) == "\n".join([
        "direction: right",
        'g0: "grp" {',
        '  n0: "say \\"hi\\" \\$x"',
        "}",
        'n1: "back\\\\slash"',
        'n2: "plain"',
        'g0.n0 -> n1: "3"',
        "n1 -> n2",
    ])


def test_every_d2_block_renders(run_cli, tmp_path: Path) -> None:
    need_d2()
    found: list[str] = []
    repos = [make_repo(tmp_path / "demo"), hostile_repo(tmp_path / "hostile"), ios_app(tmp_path),
             package_only(tmp_path / "shelf")]
    for repo in repos:
        proc = run_cli("wiki", str(repo), "--no-security", "--diagrams", "d2")
        assert proc.returncode == 0, proc.stderr
        here = blocks(repo / "docs" / "wiki", "d2")
        assert here, f"no D2 block in the wiki of {repo.name}"
        assert not blocks(repo / "docs" / "wiki", "mermaid")
        found += here
    assert any('a\\"b' in b for b in found)  # the hostile quote was escaped, not dropped
    flow = parse('flowchart TD\n  A["api"] -->|calls| B["db $x"]\n  B --> C["cache"]')
    seq = parse("sequenceDiagram\n  participant U as user\n  participant S as server\n  U->>S: GET /\n  S-->>U: 200")
    found += [fenced_text(d, "d2").removeprefix("```d2\n").removesuffix("\n```") for d in (flow, seq)]
    results = render_all(found)
    assert len(results) == len(found) > 10
    assert [r for r in results if r != "ok"] == []


def test_broken_d2_is_caught_by_the_renderer() -> None:
    need_d2()  # the harness must be able to fail, or the test above proves nothing
    unescaped = "\n".join(f'n{i}: "{name}"' for i, name in enumerate(HOSTILE))  # a raw quote breaks it
    results = render_all(["n0: {{{", unescaped, 'n0: "fine"'])
    assert results[2] == "ok" and results[0].startswith("error") and results[1].startswith("error")
