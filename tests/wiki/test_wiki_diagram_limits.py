"""Diagrams that read: on a project with many modules every diagram keeps to about 30 nodes
and 50 edges; the module graph is clustered by folder, each cluster has a drill-down page,
linked from the architecture pages and built by ``mkdocs build --strict``."""

from __future__ import annotations

import re
from pathlib import Path

from test_wiki_cli import check_links, wiki_pages

from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.diagrams import MAX_EDGES, MAX_NODES
from aiagent.engines.wiki.drilldown import clustered

PACKAGES, SUBS = 4, 9  # 36 code modules, each importing three others: over both limits


def many_modules(root: Path) -> Path:
    for p in range(PACKAGES):
        for s in range(SUBS):
            folder = root / f"pkg{p}" / f"sub{s}"
            folder.mkdir(parents=True)
            imports = [f"pkg{(p + 1) % PACKAGES}.sub{(s + 1) % SUBS}", f"pkg{p}.sub{(s + 2) % SUBS}",
                       f"pkg{(p + 2) % PACKAGES}.sub{(s + 4) % SUBS}"]
            text = "".join(f"from {i}.mod import f{i.replace('.', '_')}\n" for i in imports)
            name = f"pkg{p}_sub{s}"
            (folder / "mod.py").write_text(f'"""Module {name}."""\n{text}\n\ndef f{name}():\n    return 1\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_all.py").write_text("from pkg0.sub0.mod import fpkg0_sub0\n\n\n"
                                                "def test_it():\n    assert fpkg0_sub0() == 1\n")
    return root


def sizes(block: str) -> tuple[int, int]:
    nodes = len(re.findall(r"^\s*n\d+\[", block, re.M))
    edges = len(re.findall(r"-->", block))
    return nodes, edges


def test_every_diagram_keeps_to_the_limits_and_clusters_have_pages(run_cli, tmp_path: Path) -> None:
    project = many_modules(tmp_path / "many")
    out = tmp_path / "mk"
    proc = run_cli("wiki", str(project), "-o", str(out), "--format", "mkdocs", "--no-model", "--no-security")
    assert proc.returncode == 0, proc.stderr
    pages = wiki_pages(out / "docs")
    blocks = [(rel, b) for rel, text in pages.items() for b in re.findall(r"```mermaid\n(.*?)\n```", text, re.S)]
    assert len(blocks) > PACKAGES * SUBS
    for rel, block in blocks:
        nodes, edges = sizes(block)
        assert nodes <= MAX_NODES and edges <= MAX_EDGES, f"{rel}: {nodes} nodes, {edges} edges"
    arch = pages["architecture/overview.md"]
    folded = sorted(re.findall(r'\["(pkg\d)/ \(9 modules\)"\]', arch))
    assert len(folded) >= 2, arch[:1500]  # folded until the graph fits, no further
    drill = sorted(p for p in pages if p.startswith("architecture/clusters/"))
    assert drill == [f"architecture/clusters/{p}.md" for p in folded]
    for page in drill:
        assert f"]({page.removeprefix('architecture/')})" in arch, f"{page} is not linked"
    p, q = folded[0], f"pkg{(int(folded[0][3]) + 1) % PACKAGES}"
    one = pages[f"architecture/clusters/{p}.md"]
    assert sizes(re.findall(r"```mermaid\n(.*?)\n```", one, re.S)[0])[0] >= SUBS  # the modules inside
    assert f'["{p}/sub3"]' in one and "subgraph g" in one and f'["{q}"]' in one  # and the folders outside
    assert f"](../../modules/{p}-sub3.md)" in one
    check_links(out / "docs", pages)
    from test_wiki_site_builds import mkdocs_build

    log = mkdocs_build(out)
    assert "WARNING" not in log, log
    assert (out / "site" / "architecture" / "clusters" / p / "index.html").is_file()


def module(name: str, deps: dict[str, int], test: bool = False) -> Module:
    from collections import Counter

    return Module(re.sub(r"[^a-z0-9]+", "-", name), name, [f"{name}/a.py"], test, Counter(deps))


def test_small_graphs_are_drawn_as_they_are_and_tests_fold_first() -> None:
    small = [module("a", {"b": 1}), module("b", {})]
    assert clustered(small).key == {"a": "a", "b": "b"}
    many = [module(f"src/m{i}", {f"src-m{(i + 1) % 20}": 1}) for i in range(20)]
    many += [module(f"tests/t{i}", {f"src-m{i}": 1}, test=True) for i in range(20)]
    c = clustered(many)
    assert set(c.key.values()) == {*(f"src/m{i}" for i in range(20)), "tests"}  # the tests fold, not src


def test_a_flat_folder_too_big_to_fold_is_collapsed_and_pruned() -> None:
    from aiagent.engines.wiki.diagrams import Graph, bounded, fenced

    graph = Graph("flat")
    for i in range(60):
        graph.add_node(str(i), f"m{i}")
    for i in range(60):
        for j in (1, 2, 3):
            graph.add_edge(str(i), str((i + j) % 60))
    small, dropped = bounded(graph)
    assert len(small.nodes) == MAX_NODES and len(small.edges) == MAX_EDGES and dropped > 0
    text = fenced(graph)
    assert sizes(text) == (MAX_NODES, MAX_EDGES)
    assert f"_{dropped} lighter links are not drawn" in text
