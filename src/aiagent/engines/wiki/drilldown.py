"""Module graphs that read: over :data:`~.diagrams.MAX_NODES` nodes or
:data:`~.diagrams.MAX_EDGES` edges, modules are clustered by folder — the deepest, smallest
folders fold into their parent first, as in :mod:`.cluster` — until the graph fits. A cluster
of more than one module is one node, and its drill-down page
(``architecture/clusters/<folder>.md``) draws the modules inside it (clustered again when
they are many) beside the clusters outside that they import or are imported by.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass

from aiagent.engines.wiki.cluster import Module
from aiagent.engines.wiki.diagrams import MAX_EDGES, MAX_NODES, Graph, fenced
from aiagent.engines.wiki.pages import Page, cell, page_link, table

FOLDER = "architecture/clusters"


@dataclass(slots=True)
class Clustered:
    """A module graph drawn by clusters: ``key`` maps a module id to its node (a folder, or the
    module's own name when it stands alone); ``members`` lists each node's modules."""

    key: dict[str, str]
    members: dict[str, list[Module]]

    def is_cluster(self, node: str) -> bool:
        return len(self.members[node]) > 1 or self.members[node][0].name != node


def clustered(modules: list[Module], floor: str = ".", limits: tuple[int, int] = (MAX_NODES, MAX_EDGES)) -> Clustered:
    """Fold folders (never into ``floor`` or above it) until the graph of ``modules`` fits."""
    ids = {m.id for m in modules}
    key = {m.id: m.name for m in modules}
    tests = {m.id for m in modules if m.is_test}
    while not _fits(modules, ids, key, limits):
        target = _smallest_parent(key, floor, tests)
        if target is None:
            break
        key = {mid: (target if k != target and _under(k, target) else k) for mid, k in key.items()}
    members: dict[str, list[Module]] = {}
    for m in modules:
        members.setdefault(key[m.id], []).append(m)
    return Clustered(key, members)


def _fits(modules: list[Module], ids: set[str], key: dict[str, str], limits: tuple[int, int]) -> bool:
    edges = {(key[m.id], key[d]) for m in modules for d in m.deps_out if d in ids and key[d] != key[m.id]}
    return len(set(key.values())) <= limits[0] and len(edges) <= limits[1]


def _smallest_parent(key: dict[str, str], floor: str, tests: set[str]) -> str | None:
    """The parent folder, strictly below ``floor``, to fold next: one of test modules only
    first, then the one whose folded cluster would be smallest (deepest first on a tie)."""
    sizes = Counter(key.values())
    merged: Counter[str] = Counter()
    for node, n in sizes.items():
        parent = _parent(node)
        if node != "." and parent != floor and _under(parent, floor):
            merged[parent] += n
    for parent in merged:
        merged[parent] += sum(n for node, n in sizes.items() if node == parent)
    if not merged:
        return None
    code = {p for p in merged for mid, k in key.items() if mid not in tests and _under(k, p)}
    return min(merged, key=lambda p: (p in code, merged[p], -p.count("/"), p))


def _parent(folder: str) -> str:
    return posixpath.dirname(folder) or "."


def _under(folder: str, ancestor: str) -> bool:
    return ancestor == "." or folder == ancestor or folder.startswith(ancestor + "/")


def _outside_node(name: str, folder: str) -> str:
    """A module outside ``folder``, drawn as the folder that holds it just below the deepest
    folder it shares with ``folder``: siblings of ``folder`` and of its ancestors."""
    if name == ".":
        return name
    ours, theirs = folder.split("/"), name.split("/")
    n = 0
    while n < min(len(ours), len(theirs)) and ours[n] == theirs[n]:
        n += 1
    return "/".join(theirs[: n + 1])


def slug(folder: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", folder.lower()).strip("-") or "root"


def cluster_path(folder: str) -> str:
    return f"{FOLDER}/{slug(folder)}.md"


def node_label(c: Clustered, node: str) -> str:
    if not c.is_cluster(node):
        return c.members[node][0].title
    return f"{'(project root)' if node == '.' else node}/ ({len(c.members[node])} modules)"


def graph_of(c: Clustered, title: str, outside: dict[str, str] | None = None,
             outside_label: str = "outside", groups: bool = False) -> Graph:
    """The clustered graph; ``outside`` maps modules beyond ``c`` to the node they are drawn as;
    with ``groups`` the nodes of one top folder share a subgraph."""
    outside = outside or {}
    graph = Graph(title)
    for node in sorted(c.members):
        graph.add_node(node, node_label(c, node), node.split("/", 1)[0] if groups and "/" in node else "")
    nodes = {**{mid: f"out:{k}" for mid, k in outside.items()}, **c.key}
    for m in (m for ms in c.members.values() for m in ms):
        for dst, n in m.deps_out.items():
            _edge(graph, nodes, m.id, dst, n, outside_label)
        for src, n in m.deps_in.items():
            if src in outside:
                _edge(graph, nodes, src, m.id, n, outside_label)
    return graph


def _edge(graph: Graph, nodes: dict[str, str], src: str, dst: str, n: int, outside_label: str) -> None:
    a, b = nodes.get(src), nodes.get(dst)
    if a is None or b is None:
        return
    for key in (a, b):
        if key.startswith("out:") and key not in graph.nodes:
            name = key[4:]
            graph.add_node(key, "(project root)" if name == "." else name, outside_label)
    graph.add_edge(a, b, n)


def cluster_rows(c: Clustered, page: str) -> list[list[str]]:
    """A table row per node: where it links (the cluster's page, or the module's)."""
    rows = []
    for node in sorted(c.members):
        target = cluster_path(node) if c.is_cluster(node) else f"modules/{c.members[node][0].id}.md"
        ms = c.members[node]
        rows.append([f"[{cell(node_label(c, node))}]({page_link(page, target)})", str(len(ms)),
                     str(sum(len(m.files) for m in ms))])
    return rows


def clusters_table(c: Clustered, page: str) -> str:
    if not any(c.is_cluster(n) for n in c.members):
        return ""
    return ("Each folder cluster has its own page with the modules inside it.\n\n"
            + table(["cluster or module", "modules", "files"], cluster_rows(c, page)))


def drilldown_pages(tops: list[Clustered], modules: list[Module], fmt: str) -> list[Page]:
    """A page per cluster of ``tops`` (and, when a cluster is still too big, per sub-cluster)."""

    pages: dict[str, Page] = {}
    todo = [(node, top) for top in tops for node in sorted(top.members) if top.is_cluster(node)]
    while todo:
        folder, _ = todo.pop(0)
        path = cluster_path(folder)
        if path in pages:
            continue
        inside = [m for m in modules if _under(m.name, folder)]
        ids = {m.id for m in inside}
        sub = clustered(inside, folder)
        outside = {m.id: _outside_node(m.name, folder) for m in modules if m.id not in ids}
        body = [f"# {cell(folder)}", "", f"The {len(inside)} modules under {cell(folder)}/ and the "
                "modules outside it that they import or are imported by (arrows point from the "
                "importing module to the imported one).", "",
                fenced(graph_of(sub, folder, outside), fmt), "",
                table(["cluster or module", "modules", "files"], cluster_rows(sub, path))]
        pages[path] = Page(path, f"{folder} (cluster)", "\n".join(body) + "\n")
        todo += [(node, sub) for node in sorted(sub.members) if sub.is_cluster(node) and node != folder]
    return list(pages.values())
