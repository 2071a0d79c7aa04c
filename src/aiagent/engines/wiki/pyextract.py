"""Python files read from their tree: signatures, docstrings, imports (relative ones too)."""

from __future__ import annotations

from typing import Any

from aiagent.engines.wiki.extract import first_paragraph
from aiagent.engines.wiki.model import FileModel, Symbol


def python_file(root: Any, fm: FileModel) -> None:
    fm.doc = _docstring(root)
    _visit(root, fm, owner=None)
    fm.symbols.sort(key=lambda s: s.line)
    fm.imports = list(dict.fromkeys(_imports(root)))


def _visit(node: Any, fm: FileModel, owner: Symbol | None) -> None:
    for child in node.children:
        target = child
        if child.type == "decorated_definition":
            target = child.child_by_field_name("definition")
        if target is None or target.type not in ("function_definition", "class_definition"):
            continue
        sym = _symbol(target, fm, owner)
        fm.symbols.append(sym)
        if sym.kind == "class":
            body = target.child_by_field_name("body")
            if body is not None:
                _visit(body, fm, sym)


def _symbol(node: Any, fm: FileModel, owner: Symbol | None) -> Symbol:
    name = _text(node.child_by_field_name("name"))
    body = node.child_by_field_name("body")
    colon = [c for c in node.children if c.type == ":"]
    end = colon[-1].start_byte if colon else body.start_byte if body is not None else node.end_byte
    signature = head_text(node, end)
    kind = "class" if node.type == "class_definition" else ("method" if owner else "function")
    dunder = name.startswith("__") and name.endswith("__")
    public = (not name.startswith("_") or dunder) and (owner is None or owner.public)
    qualname = f"{owner.name}.{name}" if owner else name
    return Symbol(kind, name, qualname, fm.rel, node.start_point[0] + 1, node.end_point[0] + 1,
                  signature, _docstring(body) if body is not None else "", public)


def head_text(node: Any, end: int) -> str:
    """``node``'s text up to byte ``end`` on one line, without the comments in it (a comment
    after ``def f():`` or beside a parameter is not part of the signature)."""
    cuts: list[tuple[int, int]] = []
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.start_byte >= end:
            continue
        if child.type == "comment":
            cuts.append((child.start_byte, min(child.end_byte, end)))
        else:
            stack.extend(child.children)
    text, at = bytearray(), node.start_byte
    for start, stop in sorted(cuts):
        text += node.text[at - node.start_byte: start - node.start_byte] + b" "
        at = stop
    text += node.text[at - node.start_byte: end - node.start_byte]
    return " ".join(text.decode("utf-8", "replace").split())


def _docstring(block: Any) -> str:
    for child in block.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1 \
                and child.named_children[0].type == "string":
            parts = [_text(c) for c in child.named_children[0].named_children if c.type == "string_content"]
            return first_paragraph("".join(parts))
        return ""
    return ""


def _imports(root: Any) -> list[str]:
    """Dotted names as written; ``from a import b`` gives ``a.b`` (b may be a module); relative
    imports keep their dots."""
    found: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "import_statement":
            found += [_text(n.child_by_field_name("name") or n) for n in node.named_children]
        elif node.type == "import_from_statement":
            module = _text(node.child_by_field_name("module_name"))
            names = [n.child_by_field_name("name") or n for n in node.children_by_field_name("name")]
            joiner = "" if module.endswith(".") else "."
            found += [module] + [f"{module}{joiner}{_text(n)}" for n in names]
        else:  # imports inside functions and classes count too
            stack.extend(reversed(node.children))
    return found


def _text(node: Any) -> str:
    return "" if node is None else str(node.text.decode("utf-8", "replace"))
