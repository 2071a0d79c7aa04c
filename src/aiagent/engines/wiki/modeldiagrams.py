"""Diagrams the model writes: parsed in a strict subset of Mermaid, then written again from
the parsed form with our own escaping, so a kept diagram renders by construction.

Accepted: ``flowchart``/``graph`` (nodes ``id``, ``id[label]``, ``id("label")``, ``id{label}``…,
edges ``-->``, ``---``, ``-.->``, ``==>`` with an optional ``|label|``, chains, one level of
``subgraph … end``, ``%%`` comments) and ``sequenceDiagram`` (``participant``/``actor``
with ``as``, messages ``A->>B: text`` with the usual arrows, ``Note``, ``loop``/``alt``/
``opt``/``else``/``end``, ``autonumber``, ``activate``). Anything else — ``click``,
``style``, ``classDef``, HTML, another diagram type — is a :class:`DiagramError` naming the
line. Flowcharts are kept as :class:`~aiagent.engines.wiki.diagrams.Graph` (Mermaid or DOT out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aiagent.engines.wiki.diagrams import Graph, to_d2, to_dot, to_mermaid

MAX_NODES = 30  # as diagrams.MAX_NODES: a diagram that reads
MAX_MESSAGES = 50
_ID = r"[A-Za-z_][\w-]{0,40}"
_SHAPES = {"[": "]", "(": ")", "{": "}", "([": "])", "((": "))", "[(": ")]", "[[": "]]", "{{": "}}"}
_NODE = re.compile(rf"({_ID})(?:(\(\(|\(\[|\[\(|\[\[|\{{\{{|\[|\(|\{{)(\"[^\"\n]*\"|[^\"\[\](){{}}|\n]*)"
                   rf"(\)\)|\]\)|\)\]|\]\]|\}}\}}|\]|\)|\}}))?")
_ARROW = re.compile(r"\s*(-->|---|-\.->|==>)(?:\|([^|\n]*)\|)?\s*")
_PARTICIPANT = re.compile(rf"(participant|actor)\s+({_ID})(?:\s+as\s+(.+))?")
_MESSAGE = re.compile(rf"({_ID})\s*(-->>|->>|-->|->|--x|-x|--\)|-\))\s*({_ID})\s*:\s*(.*)")
_NOTE = re.compile(rf"[Nn]ote\s+(over|left of|right of)\s+({_ID}(?:\s*,\s*{_ID})?)\s*:\s*(.*)")
_BLOCK = re.compile(r"(loop|alt|opt|else|par|and|critical|break)\b\s*(.*)")
_DIRECTIONS = ("LR", "RL", "TB", "TD", "BT")


class DiagramError(ValueError):
    """The diagram is outside the accepted subset; the message names the line."""


@dataclass(slots=True)
class Sequence:
    participants: dict[str, str] = field(default_factory=dict)  # id -> label
    steps: list[tuple[str, ...]] = field(default_factory=list)


@dataclass(slots=True)
class Diagram:
    kind: str  # flowchart | sequence
    graph: Graph | None = None
    sequence: Sequence | None = None
    direction: str = "LR"


def parse(text: str, max_lines: int = 60) -> Diagram:
    lines = [ln.strip() for ln in text.strip().strip("`").splitlines()]
    if lines and lines[0].lower() == "mermaid":
        lines = lines[1:]
    lines = [ln for ln in lines if ln and not ln.startswith("%%")]
    if not lines:
        raise DiagramError("empty diagram")
    if len(lines) > max_lines:
        raise DiagramError(f"more than {max_lines} lines")
    head = lines[0].split()
    if head[0] in ("flowchart", "graph") and len(head) <= 2:
        direction = head[1] if len(head) == 2 else "TD"
        if direction not in _DIRECTIONS:
            raise DiagramError(f"line 1: unknown direction {direction[:20]!r}")
        return Diagram("flowchart", graph=_flowchart(lines[1:]), direction="TD" if direction == "TB" else direction)
    if lines[0] == "sequenceDiagram":
        return Diagram("sequence", sequence=_sequence(lines[1:]))
    raise DiagramError("line 1: only flowchart and sequenceDiagram are accepted")


def _flowchart(lines: list[str]) -> Graph:
    graph, group = Graph("diagram"), ""
    for number, line in enumerate(lines, 2):
        line = line.rstrip(";").strip()
        if line.startswith("subgraph ") or line == "subgraph":
            if group:
                raise DiagramError(f"line {number}: nested subgraph")
            node = _NODE.fullmatch(line[len("subgraph"):].strip())
            group = _label(node.group(3) if node and node.group(3) is not None else line[9:].strip())
            group = group or "group"
            continue
        if line == "end":
            if not group:
                raise DiagramError(f"line {number}: 'end' without a subgraph")
            group = ""
            continue
        _statement(graph, line, number, group)
        if len(graph.nodes) > MAX_NODES:
            raise DiagramError(f"more than {MAX_NODES} nodes")
    if group:
        raise DiagramError("a subgraph is not closed with 'end'")
    if not graph.nodes:
        raise DiagramError("no node")
    return graph


def _statement(graph: Graph, line: str, number: int, group: str) -> None:
    pos, previous = 0, None
    while True:
        node = _NODE.match(line, pos)
        if node is None or (node.group(2) and _SHAPES[node.group(2)] != node.group(4)):
            raise DiagramError(f"line {number}: cannot read {line[pos:pos + 40]!r}")
        key = node.group(1)
        if key in ("end", "subgraph", "click", "style", "classDef", "class", "linkStyle"):
            raise DiagramError(f"line {number}: {key!r} is not accepted")
        if key not in graph.nodes or node.group(3) is not None:
            graph.add_node(key, _label(node.group(3)) if node.group(3) is not None else key,
                           graph.groups.get(key, group))
        if previous is not None:
            graph.add_edge(previous, key)
        pos, previous = node.end(), key
        if pos == len(line):
            return
        arrow = _ARROW.match(line, pos)
        if arrow is None:
            raise DiagramError(f"line {number}: cannot read {line[pos:pos + 40]!r}")
        pos = arrow.end()


def _label(raw: str) -> str:
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return re.sub(r"<[^>]*>", " ", text).strip()


def _sequence(lines: list[str]) -> Sequence:
    seq, depth = Sequence(), 0
    for number, line in enumerate(lines, 2):
        if line in ("autonumber",) or re.fullmatch(rf"(activate|deactivate)\s+{_ID}", line):
            continue
        if m := _PARTICIPANT.fullmatch(line):
            seq.participants[m.group(2)] = _label(m.group(3) or m.group(2))
        elif m := _MESSAGE.fullmatch(line):
            for who in (m.group(1), m.group(3)):
                seq.participants.setdefault(who, who)
            seq.steps.append(("message", m.group(1), m.group(2), m.group(3), _label(m.group(4))))
        elif m := _NOTE.fullmatch(line):
            who = [w.strip() for w in m.group(2).split(",")]
            if any(w not in seq.participants for w in who):
                raise DiagramError(f"line {number}: a note about an unknown participant")
            seq.steps.append(("note", m.group(1), *who[:2], _label(m.group(3))))
        elif m := _BLOCK.fullmatch(line):
            if m.group(1) in ("else", "and"):
                if depth == 0:
                    raise DiagramError(f"line {number}: {m.group(1)!r} outside a block")
            else:
                depth += 1
            seq.steps.append(("block", m.group(1), _label(m.group(2))))
        elif line == "end":
            if depth == 0:
                raise DiagramError(f"line {number}: 'end' without a block")
            depth -= 1
            seq.steps.append(("end",))
        else:
            raise DiagramError(f"line {number}: cannot read {line[:40]!r}")
    if depth:
        raise DiagramError("a block is not closed with 'end'")
    if not any(s[0] == "message" for s in seq.steps):
        raise DiagramError("no message")
    if len(seq.participants) > MAX_NODES:
        raise DiagramError(f"more than {MAX_NODES} participants")
    if sum(1 for s in seq.steps if s[0] == "message") > MAX_MESSAGES:
        raise DiagramError(f"more than {MAX_MESSAGES} messages")
    return seq


def _text(text: str, limit: int = 80) -> str:
    """Message or note text as Mermaid entity codes where a character could mean syntax."""
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return "".join(f"#{ord(c)};" if c in '"#<>&;`{}%:|\\' or ord(c) < 32 else c for c in text) or " "


def to_text(diagram: Diagram, fmt: str = "mermaid") -> str:
    """The diagram written again (Mermaid, DOT or D2), from the parsed form only."""
    if diagram.kind == "flowchart" and diagram.graph is not None:
        if fmt == "dot":
            return to_dot(diagram.graph, MAX_NODES)
        if fmt == "d2":
            return to_d2(diagram.graph, MAX_NODES)
        return to_mermaid(diagram.graph, MAX_NODES, diagram.direction)
    seq = diagram.sequence
    assert seq is not None
    ids = {key: f"p{i}" for i, key in enumerate(seq.participants)}
    if fmt in ("dot", "d2"):
        graph = Graph("sequence")
        for key, label in seq.participants.items():
            graph.add_node(key, label)
        for step in seq.steps:
            if step[0] == "message":
                graph.add_edge(step[1], step[3])
        return to_d2(graph, MAX_NODES) if fmt == "d2" else to_dot(graph, MAX_NODES)
    lines = ["sequenceDiagram"]
    lines += [f"  participant {ids[k]} as {_text(v, 40)}" for k, v in seq.participants.items()]
    for step in seq.steps:
        if step[0] == "message":
            lines.append(f"  {ids[step[1]]}{step[2]}{ids[step[3]]}: {_text(step[4])}")
        elif step[0] == "note":
            who = ",".join(ids[w] for w in step[2:-1])
            lines.append(f"  Note {step[1]} {who}: {_text(step[-1])}")
        elif step[0] == "block":
            lines.append(f"  {step[1]} {_text(step[2])}")
        else:
            lines.append("  end")
    return "\n".join(lines)


def fenced_text(diagram: Diagram, fmt: str = "mermaid") -> str:
    lang = fmt if fmt in ("dot", "d2") else "mermaid"
    return f"```{lang}\n{to_text(diagram, fmt)}\n```"
