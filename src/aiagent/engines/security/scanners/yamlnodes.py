"""Walk a YAML node tree (with line numbers) instead of plain data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


def compose_all(text: str) -> list[Any]:
    try:
        return [n for n in yaml.compose_all(text, Loader=_Loader) if n is not None]
    except yaml.YAMLError:
        return []


def get(node: Any, key: str) -> Any:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
    return None


def items(node: Any) -> list[tuple[str, Any]]:
    if isinstance(node, yaml.MappingNode):
        return [(k.value, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]
    return []


def seq(node: Any) -> list[Any]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def scalar(node: Any) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


def line(node: Any) -> int:
    return int(node.start_mark.line) + 1


def line_in_scalar(node: Any, offset: int) -> int:
    """Line of ``offset`` inside a scalar's value (block scalars start a line later)."""
    start = line(node) + (1 if node.style in ("|", ">") else 0)
    return start + str(node.value)[:offset].count("\n")


def walk(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every (path, node) pair; sequence items get the path segment '[]'."""
    yield path, node
    if isinstance(node, yaml.MappingNode):
        for k, v in items(node):
            yield from walk(v, (*path, k))
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            yield from walk(v, (*path, "[]"))
