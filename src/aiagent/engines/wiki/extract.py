"""One source file → :class:`FileModel`: symbols, docstrings, imports and calls."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

from aiagent.agent.tools.ast import compiled, shortcuts
from aiagent.engines.wiki.errors import WikiError
from aiagent.engines.wiki.model import FileModel, Symbol
from aiagent.engines.wiki.scan import ScannedFile
from aiagent.infra.syntax.treesitter import get_language, parse

CLASS_KINDS = ("class",)
DOC_MAX = 300


@cache
def import_queries() -> dict[str, str]:
    data = resources.files("aiagent.engines.wiki").joinpath("queries.toml").read_bytes()
    return {lang: kinds["imports"] for lang, kinds in tomllib.loads(data.decode()).items()}


def extract(item: ScannedFile) -> FileModel:

    try:
        data = item.path.read_bytes()
    except OSError as exc:
        raise WikiError(f"{item.rel}: cannot read: {exc.strerror or exc}") from None
    tree = parse(item.language, data)
    fm = FileModel(item.rel, item.language, item.is_test, data.count(b"\n") + 1)
    if item.language == "python":
        from aiagent.engines.wiki.pyextract import python_file

        python_file(tree.root_node, fm)
    else:
        generic_file(tree.root_node, fm)
    fm.calls = list(_captures(item.language, "call", tree.root_node))
    return fm


def _captures(language: str, kind: str, root: Any) -> list[tuple[int, str]]:

    source = shortcuts().get(language, {}).get(kind)
    if not source:
        return []
    return [(node.start_point[0] + 1, name) for node, name in _matches(compiled(language, source), root)]


def _matches(query: Any, root: Any) -> list[tuple[Any, str]]:
    import tree_sitter

    found = []
    for _index, captures in tree_sitter.QueryCursor(query).matches(root):
        names = captures.get("name") or []
        nodes = captures.get("node") or names
        if names and nodes:
            found.append((min(nodes, key=lambda n: n.start_byte), _text(names[0])))
    return found


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def generic_file(root: Any, fm: FileModel) -> None:
    """Functions and classes from the shortcut queries; the innermost class owns a method."""

    kinds = shortcuts().get(fm.language, {})
    classes = [_symbol(n, name, "class", fm) for n, name in _matches(compiled(fm.language, kinds["class"]), root)] \
        if "class" in kinds else []
    functions = [_symbol(n, name, "function", fm) for n, name in
                 _matches(compiled(fm.language, kinds["function"]), root)] if "function" in kinds else []
    for fn in functions:
        owners = [c for c in classes if c.line <= fn.line <= c.end_line and c.line != fn.line]
        if owners:
            owner = max(owners, key=lambda c: c.line)
            fn.kind, fn.qualname = "method", f"{owner.name}.{fn.name}"
            fn.public = fn.public and owner.public
    fm.symbols = sorted(classes + functions, key=lambda s: (s.line, s.kind))
    fm.imports = _imports(fm.language, root)


def _symbol(node: Any, name: str, kind: str, fm: FileModel) -> Symbol:
    from aiagent.engines.wiki.pyextract import head_text

    body = node.child_by_field_name("body")
    first = head_text(node, body.start_byte) if body is not None else _text(node).split("\n", 1)[0].strip()
    first = first.rstrip("{").rstrip()
    signature = first if len(first) <= 160 else first[:157] + "..."
    return Symbol(kind, name, name, fm.rel, node.start_point[0] + 1, node.end_point[0] + 1,
                  signature, _leading_comment(node), _is_public(fm.language, name, node))


def _is_public(language: str, name: str, node: Any) -> bool:
    if language == "go":
        return name[:1].isupper()
    if name.startswith(("_", "#")):
        return False
    text = _text(node)[:200]
    return not any(word in text.split("(", 1)[0].split() for word in ("private", "internal", "fileprivate"))


def _leading_comment(node: Any) -> str:
    anchor = node
    while anchor.parent is not None and anchor.parent.type in (
            "export_statement", "lexical_declaration", "variable_declaration", "decorated_definition") \
            and anchor.parent.start_point[0] >= node.start_point[0] - 1:
        anchor = anchor.parent
    prev = anchor.prev_named_sibling
    if prev is None or "comment" not in prev.type or prev.end_point[0] < anchor.start_point[0] - 1:
        return ""
    lines = [ln.strip().lstrip("/*#!").rstrip("*/").strip() for ln in _text(prev).splitlines()]
    return first_paragraph("\n".join(lines))


def first_paragraph(text: str) -> str:
    para = " ".join(text.strip().split("\n\n", 1)[0].split())
    return para if len(para) <= DOC_MAX else para[: DOC_MAX - 3] + "..."


def _imports(language: str, root: Any) -> list[str]:
    import tree_sitter


    source = import_queries().get(language)
    if not source:
        return []
    query = _import_query(language, source, get_language(language))
    found: list[str] = []
    for _index, captures in tree_sitter.QueryCursor(query).matches(root):
        fn = captures.get("fn")
        if fn and _text(fn[0]) != "require":
            continue
        for node in captures.get("name") or []:
            name = _text(node).strip('"`')
            if name and name not in found:
                found.append(name)
    return found


@cache
def _import_query(language: str, source: str, grammar: Any) -> Any:
    import tree_sitter

    return tree_sitter.Query(grammar, source)
