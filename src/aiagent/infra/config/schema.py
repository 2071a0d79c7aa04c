"""The settings model: ``schema.json`` holds every key, its type, its limits and its default.

A small validator for the part of JSON Schema the file uses (``type``, ``enum``, numeric
limits, ``minLength``, ``pattern``, ``properties``, ``additionalProperties``, ``items``,
``$ref``) keeps ``jsonschema`` (about 250 ms to import) off the start-up path; a test checks
that it agrees with ``jsonschema`` on the same file. :func:`defaults` builds the defaults
layer from the ``default`` values, so the defaults live in one place.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

_MISSING = object()
_TYPES = {
    "string": "a string", "integer": "an integer", "number": "a number",
    "boolean": "true or false", "array": "a list", "object": "a table",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong: where (the keys leading to the value) and what."""

    path: tuple[str | int, ...]
    message: str

    @property
    def keys(self) -> list[str]:
        """The path as TOML keys: list indexes are folded into the key before them."""
        out: list[str] = []
        for part in self.path:
            if isinstance(part, int) and out:
                out[-1] += f"[{part}]"
            else:
                out.append(str(part))
        return out

    def where(self) -> str:
        """``[table] key`` (or just ``key`` at the top level)."""
        keys = self.keys
        if not keys:
            return "(top level)"
        return keys[0] if len(keys) == 1 else f"[{'.'.join(keys[:-1])}] {keys[-1]}"


@cache
def schema() -> dict[str, Any]:
    text = resources.files("aiagent.infra.config").joinpath("schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def defaults() -> dict[str, Any]:
    """The built-in defaults: every ``default`` in the schema, shaped like config.toml."""
    found = _defaults(schema(), schema())
    return found if isinstance(found, dict) else {}


def _defaults(node: dict[str, Any], root: dict[str, Any]) -> Any:
    node = _resolve(node, root)
    if "properties" not in node:
        return copy.deepcopy(node["default"]) if "default" in node else _MISSING
    out: dict[str, Any] = copy.deepcopy(node.get("default", {}))
    for key, sub in node["properties"].items():
        value = _defaults(sub, root)
        if value is not _MISSING and key not in out:
            out[key] = value
    return out if out or "default" in node else _MISSING


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` (``#/$defs/name``) merged in; the node's own keys win."""
    ref = node.get("$ref")
    if ref is None:
        return node
    target: Any = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    return {**_resolve(target, root), **{k: v for k, v in node.items() if k != "$ref"}}


def first_problem(data: Any) -> Problem | None:
    """The first problem in document order, or None when ``data`` fits the schema."""
    return next(problems(data), None)


def problems(data: Any, node: dict[str, Any] | None = None,
             path: tuple[str | int, ...] = ()) -> Iterator[Problem]:
    root = schema()
    node = _resolve(root if node is None else node, root)
    message = _type_problem(data, node) or _value_problem(data, node)
    if message:
        yield Problem(path, message)
        return
    if isinstance(data, dict):
        yield from _table(data, node, path)
    elif isinstance(data, list) and "items" in node:
        for index, item in enumerate(data):
            yield from problems(item, node["items"], (*path, index))


def _table(data: dict[str, Any], node: dict[str, Any], path: tuple[str | int, ...]) -> Iterator[Problem]:
    known: dict[str, Any] = node.get("properties", {})
    extra = node.get("additionalProperties", True)
    for key, value in data.items():
        if key in known:
            yield from problems(value, known[key], (*path, key))
        elif extra is False:
            yield Problem((*path, key), "unknown key" + _suggest(key, list(known)))
        elif isinstance(extra, dict):
            yield from problems(value, extra, (*path, key))


def _type_problem(value: Any, node: Mapping[str, Any]) -> str | None:
    if "enum" in node:
        if any(value == c and type(value) is type(c) for c in node["enum"]):
            return None
        choices = ", ".join(json.dumps(c) for c in node["enum"])
        hint = _suggest(value, node["enum"], list_known=False) if isinstance(value, str) else ""
        return f"expected one of {choices}, got {describe(value)}{hint}"
    kinds = node.get("type")
    if kinds is None:
        return None
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if any(_is(value, kind) for kind in kinds):
        return None
    wanted = " or ".join(_TYPES[k] for k in kinds)
    hint = ""
    if "boolean" in kinds and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        hint = f" (write {value.strip().lower()} without quotes)"
    elif kinds[0] in ("integer", "number") and isinstance(value, str) and _numeric(value):
        hint = f" (write {value.strip()} without quotes)"
    return f"expected {wanted}, got {describe(value)}{hint}"


def _value_problem(value: Any, node: Mapping[str, Any]) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in node and value < node["minimum"]:
            return f"must be at least {node['minimum']}, got {value}"
        if "exclusiveMinimum" in node and value <= node["exclusiveMinimum"]:
            return f"must be more than {node['exclusiveMinimum']}, got {value}"
        if "maximum" in node and value > node["maximum"]:
            return f"must be at most {node['maximum']}, got {value}"
    if isinstance(value, str):
        if len(value) < node.get("minLength", 0):
            return "must not be empty"
        if "pattern" in node and not re.search(node["pattern"], value):
            return f"{json.dumps(value)} is not in the expected form ({node['pattern']})"
    return None


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    python = {"string": str, "boolean": bool, "array": list, "object": dict}[kind]
    return isinstance(value, python)


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def describe(value: Any) -> str:
    """``the string "false"``, ``the integer 3``, ``a table``: what the user wrote."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {json.dumps(value, ensure_ascii=False)}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"  # TOML dates and times


def _suggest(word: str, choices: list[Any], *, list_known: bool = True) -> str:
    import difflib

    names = [str(c) for c in choices]
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {json.dumps(close[0])}?)"
    if list_known and names and len(names) <= 12:
        return f" (known: {', '.join(names)})"
    return ""
