"""Stage 4: diagrams from typed graphs — Mermaid (the default, ADR-005), Graphviz DOT and D2.

Node ids are generated (``n0``, ``n1`` …), never taken from the code; labels are escaped
for each format, so every diagram parses by construction. Every diagram stays readable: a
graph bigger than ``max_nodes`` keeps its best-connected nodes and folds the rest into one
"other" node, and past ``MAX_EDGES`` only the heaviest edges are drawn (the page says how many
are left out). Module graphs are clustered by folder before that (:mod:`.drilldown`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

MAX_NODES = 30
MAX_EDGES = 50
MAX_LABEL = 40


@dataclass(slots=True)
class Graph:
    title: str
    nodes: dict[str, str] = field(default_factory=dict)  # key -> label
    edges: Counter[tuple[str, str]] = field(default_factory=Counter)  # (from, to) -> weight
    groups: dict[str, str] = field(default_factory=dict)  # key -> group label (subgraph)

    def add_node(self, key: str, label: str, group: str = "") -> None:
        self.nodes[key] = label
        if group:
            self.groups[key] = group

    def add_edge(self, src: str, dst: str, weight: int = 1) -> None:
        if src in self.nodes and dst in self.nodes and src != dst:
            self.edges[(src, dst)] += weight


def collapse(graph: Graph, max_nodes: int = MAX_NODES) -> Graph:
    """The ``max_nodes - 1`` best-connected nodes, the rest folded into "other (k)"."""
    if len(graph.nodes) <= max_nodes:
        return graph
    degree: Counter[str] = Counter()
    for (a, b), w in graph.edges.items():
        degree[a] += w
        degree[b] += w
    keep = set(sorted(graph.nodes, key=lambda k: (-degree[k], k))[: max_nodes - 1])
    other = "\x00other"
    out = Graph(graph.title)
    for key in graph.nodes:
        if key in keep:
            out.add_node(key, graph.nodes[key], graph.groups.get(key, ""))
    out.add_node(other, f"other ({len(graph.nodes) - len(keep)} more)")
    for (a, b), w in graph.edges.items():
        out.add_edge(a if a in keep else other, b if b in keep else other, w)
    return out


def prune(graph: Graph, max_edges: int = MAX_EDGES) -> tuple[Graph, int]:
    """The graph with its ``max_edges`` heaviest edges, and how many lighter ones were left out."""
    if len(graph.edges) <= max_edges:
        return graph, 0
    kept = sorted(graph.edges.items(), key=lambda e: (-e[1], e[0]))[:max_edges]
    out = Graph(graph.title, dict(graph.nodes), Counter(dict(kept)), dict(graph.groups))
    return out, len(graph.edges) - max_edges


def bounded(graph: Graph, max_nodes: int = MAX_NODES, max_edges: int = MAX_EDGES) -> tuple[Graph, int]:
    """At most ``max_nodes`` nodes and ``max_edges`` edges; the number of edges left out."""
    return prune(collapse(graph, max_nodes), max_edges)


def _ids(graph: Graph) -> dict[str, str]:
    return {key: f"n{i}" for i, key in enumerate(graph.nodes)}


def _short(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


MERMAID_ENTITIES = {'"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;", "#": "#35;", "`": "#96;"}


def mermaid_label(label: str) -> str:
    """A quoted Mermaid label. Inside quotes Mermaid takes brackets, parentheses, pipes and
    semicolons as text, so they stay as written; only the quote, the HTML markup characters,
    ``#`` (an entity's start) and the back-quote (a Markdown string) become entity codes."""
    out = []
    for ch in _short(label):
        out.append(MERMAID_ENTITIES.get(ch, " " if ord(ch) < 32 else ch))
    return '"' + "".join(out) + '"'


def to_mermaid(graph: Graph, max_nodes: int = MAX_NODES, direction: str = "LR") -> str:
    graph = bounded(graph, max_nodes)[0]
    ids = _ids(graph)
    lines = [f"flowchart {direction}"]
    grouped: dict[str, list[str]] = {}
    for key in graph.nodes:
        grouped.setdefault(graph.groups.get(key, ""), []).append(key)
    for index, (group, keys) in enumerate(sorted(grouped.items())):
        indent = "    " if group else "  "
        if group:
            lines.append(f"  subgraph g{index}[{mermaid_label(group)}]")
        lines += [f"{indent}{ids[k]}[{mermaid_label(graph.nodes[k])}]" for k in keys]
        if group:
            lines.append("  end")
    for (a, b), weight in sorted(graph.edges.items(), key=lambda e: (ids[e[0][0]], ids[e[0][1]])):
        arrow = f"-->|{weight}|" if weight > 1 else "-->"
        lines.append(f"  {ids[a]} {arrow} {ids[b]}")
    return "\n".join(lines)


def dot_label(label: str) -> str:
    escaped = _short(label).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if ord(c) >= 32 else " " for c in escaped) + '"'


def to_dot(graph: Graph, max_nodes: int = MAX_NODES) -> str:
    graph = bounded(graph, max_nodes)[0]
    ids = _ids(graph)
    lines = [f"digraph {dot_label(graph.title)} {{", "  rankdir=LR;", "  node [shape=box];"]
    lines += [f"  {ids[k]} [label={dot_label(v)}];" for k, v in graph.nodes.items()]
    for (a, b), weight in sorted(graph.edges.items(), key=lambda e: (ids[e[0][0]], ids[e[0][1]])):
        lines.append(f"  {ids[a]} -> {ids[b]}" + (f" [label=\"{weight}\"];" if weight > 1 else ";"))
    lines.append("}")
    return "\n".join(lines)


def d2_label(label: str) -> str:
    """A double-quoted D2 string: backslash, quote and ``$`` (substitution) escaped, control
    characters as spaces."""
    out = []
    for ch in _short(label):
        if ch in '\\"$':
            out.append("\\" + ch)
        else:
            out.append(ch if ord(ch) >= 32 else " ")
    return '"' + "".join(out) + '"'


def to_d2(graph: Graph, max_nodes: int = MAX_NODES) -> str:
    """D2 source: generated ids, groups as containers (``g0.n1``), weights as edge labels."""
    graph = bounded(graph, max_nodes)[0]
    ids = _ids(graph)
    groups = {g: f"g{i}" for i, g in enumerate(sorted(set(graph.groups.values())))}
    path = {k: f"{groups[graph.groups[k]]}.{ids[k]}" if k in graph.groups else ids[k] for k in graph.nodes}
    lines = ["direction: right"]
    for group, gid in groups.items():
        lines.append(f"{gid}: {d2_label(group)} {{")
        lines += [f"  {ids[k]}: {d2_label(graph.nodes[k])}" for k in graph.nodes if graph.groups.get(k) == group]
        lines.append("}")
    lines += [f"{ids[k]}: {d2_label(v)}" for k, v in graph.nodes.items() if k not in graph.groups]
    for (a, b), weight in sorted(graph.edges.items(), key=lambda e: (ids[e[0][0]], ids[e[0][1]])):
        lines.append(f"{path[a]} -> {path[b]}" + (f": {d2_label(str(weight))}" if weight > 1 else ""))
    return "\n".join(lines)


def fenced(graph: Graph, fmt: str = "mermaid", max_nodes: int = MAX_NODES) -> str:
    """The fenced diagram; a line under it says how many lighter edges are not drawn."""
    dropped = bounded(graph, max_nodes)[1]
    note = f"\n\n_{dropped} lighter links are not drawn (the tables list them all)._" if dropped else ""
    if fmt == "dot":
        return f"```dot\n{to_dot(graph, max_nodes)}\n```" + note
    if fmt == "d2":
        return f"```d2\n{to_d2(graph, max_nodes)}\n```" + note
    return f"```mermaid\n{to_mermaid(graph, max_nodes)}\n```" + note
