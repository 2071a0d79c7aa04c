"""Dotted names of callees and member chains, and the file's import aliases.

``request.args.get("x")`` has the dotted name ``request.args.get`` (calls and subscripts
in a chain are looked through); with ``from hashlib import md5`` the name ``md5``
resolves to ``hashlib.md5``, and with ``const { exec } = require("child_process")`` the
name ``exec`` resolves to ``child_process.exec``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from aiagent.engines.security.dataflow.grammar import JAVASCRIPT, Grammar, callee
from aiagent.infra.syntax.treesitter import get_language

MAX_PARTS = 12


def dotted(node: Any, g: Grammar) -> str:
    """The dotted name of a member chain, or "" when the chain does not start at a name."""
    parts: list[str] = []
    current = node
    while current is not None and len(parts) < MAX_PARTS:
        kind = current.type
        if kind in g.members:
            obj_field, member_field = g.members[kind]
            member = current.child_by_field_name(member_field)
            parts.append(_text(member))
            current = current.child_by_field_name(obj_field)
        elif kind in g.subscripts:
            current = subscript_base(current, g)
        elif kind in g.calls:
            required = _required_module(current, g)
            if required:
                parts.append(required)
                break
            current = callee(current, g)
        elif kind in g.names or kind in g.constant_names or kind in {"this", "super", "self"}:
            parts.append(_text(current))
            break
        elif kind in {"parenthesized_expression", "await", "await_expression", "non_null_expression"}:
            current = current.named_children[0] if current.named_children else None
        else:
            return ""
    return ".".join(reversed(parts))


def subscript_base(node: Any, g: Grammar) -> Any:
    """The indexed object of a subscript (PHP's has no field name: its first child)."""
    name = g.subscripts[node.type]
    if name:
        return node.child_by_field_name(name)
    return node.named_children[0] if node.named_children else None


def go_imports(root: Any, language: str = "go", nodes: list[Any] | None = None) -> dict[str, str]:
    """`import sq "database/sql"` -> {"sq": "sql"}: calls are named by package name."""
    out: dict[str, str] = {}
    for decl in root.named_children:
        if decl.type != "import_declaration":
            continue
        specs = [c for c in decl.named_children if c.type == "import_spec"]
        for group in decl.named_children:
            if group.type == "import_spec_list":
                specs += [c for c in group.named_children if c.type == "import_spec"]
        for spec in specs:
            path = _text(spec.child_by_field_name("path")).strip('"`')
            alias = spec.child_by_field_name("name")
            local = _text(alias) if alias is not None else path.rsplit("/", 1)[-1]
            if local not in {"_", "."} and path:
                out[local] = path.rsplit("/", 1)[-1]
    return out


def no_imports(root: Any, language: str = "", nodes: list[Any] | None = None) -> dict[str, str]:
    return {}


def _text(node: Any) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _required_module(call: Any, g: Grammar) -> str:
    """``require("m")`` -> "m" (JavaScript), else ""."""
    if "call_expression" not in g.calls:
        return ""
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "identifier" or callee.text != b"require":
        return ""
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None or first.type != "string":
        return ""
    return module_name(_text(first).strip("'\"`"))


def module_name(raw: str) -> str:
    return raw.removeprefix("node:")


def resolve(name: str, aliases: dict[str, str]) -> str:
    head, _, rest = name.partition(".")
    target = aliases.get(head)
    if target is None:
        return name
    return f"{target}.{rest}" if rest else target


def python_imports(root: Any, language: str = "python", nodes: list[Any] | None = None) -> dict[str, str]:
    """Aliases from the import statements (``nodes``: already captured, else queried)."""
    out: dict[str, str] = {}
    for node in _descendants(root, language) if nodes is None else in_document_order(nodes):
        module = ""
        if node.type == "import_from_statement":
            mod = node.child_by_field_name("module_name")
            module = _text(mod)
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                full = _text(child.child_by_field_name("name"))
                local = _text(child.child_by_field_name("alias"))
            else:
                full = _text(child)
                local = full.split(".")[0] if not module else full
                if not module:
                    full = local
            out[local] = f"{module}.{full}" if module else full
    return out


def javascript_imports(root: Any, language: str = "javascript",
                       nodes: list[Any] | None = None) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in _descendants(root, language) if nodes is None else in_document_order(nodes):
        if node.type == "import_statement":
            source = node.child_by_field_name("source")
            _js_import_clause(node, module_name(_text(source).strip("'\"`")), out)
            continue
        value = node.child_by_field_name("value")
        if value is None or value.type != "call_expression":
            continue
        module = _required_module(value, JAVASCRIPT)
        if module:
            _js_binding(node.child_by_field_name("name"), module, out)
    return out


def _js_import_clause(node: Any, module: str, out: dict[str, str]) -> None:
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                out[_text(part)] = module
            elif part.type == "namespace_import" and part.named_children:
                out[_text(part.named_children[0])] = module
            elif part.type == "named_imports":
                for spec in part.named_children:
                    name = _text(spec.child_by_field_name("name"))
                    alias = spec.child_by_field_name("alias")
                    out[_text(alias) if alias is not None else name] = f"{module}.{name}"


def _js_binding(target: Any, module: str, out: dict[str, str]) -> None:
    if target is None:
        return
    if target.type == "identifier":
        out[_text(target)] = module
    elif target.type == "object_pattern":
        for part in target.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                out[_text(part)] = f"{module}.{_text(part)}"
            elif part.type == "pair_pattern":
                key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                out[_text(value)] = f"{module}.{_text(key)}"


IMPORT_QUERIES = {  # the analyzer runs these inside its one query per file (capture @i)
    "python": "[(import_statement) (import_from_statement)] @i",
    "javascript": '(import_statement) @i (variable_declarator value: (call_expression'
                  ' function: (identifier) @r (#eq? @r "require"))) @i',
}


@cache
def _query(language: str) -> Any:
    import tree_sitter


    family = "python" if language == "python" else "javascript"
    return tree_sitter.Query(get_language(language), IMPORT_QUERIES[family])


def _descendants(root: Any, language: str) -> list[Any]:
    """Import nodes anywhere in the tree (imports may sit inside functions)."""
    import tree_sitter

    captures = tree_sitter.QueryCursor(_query(language)).captures(root)
    return in_document_order(captures.get("i", []))


def in_document_order(nodes: list[Any]) -> list[Any]:
    """Nodes by position (outer first), whatever order a query returned them in."""
    return sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte, n.type))
