"""Constant folding for Python expressions: which branches can never run.

``fold(node, consts)`` returns the Python value of an expression made only of literals,
names bound to known constants (``consts``), arithmetic, comparisons, ``in``, ``not``,
``and``/``or`` and indexing of a constant string, or ``UNKNOWN`` when any part is not
known. The walker uses it to skip an ``if`` branch, a conditional expression's arm or a
``match`` case that cannot be taken (``if 7 * 42 - num > 200:`` with ``num = 86``), and to
read dict keys and list items whose index is a constant.
"""

from __future__ import annotations

import operator
from typing import Any

UNKNOWN: Any = object()
MAX_TEXT = 4_000
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
              "%": operator.mod}
COMPARE = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne}
SIMPLE = (int, str, bool, type(None))


def fold(node: Any, consts: dict[str, Any]) -> Any:
    try:
        value = _fold(node, consts, 0)
    except (TypeError, ValueError, ZeroDivisionError, IndexError, OverflowError):
        return UNKNOWN
    if isinstance(value, str) and len(value) > MAX_TEXT:
        return UNKNOWN
    return value


def _fold(node: Any, consts: dict[str, Any], depth: int) -> Any:
    if node is None or depth > 20:
        return UNKNOWN
    kind = node.type
    if kind == "integer":
        return int((node.text or b"").decode().replace("_", ""), 0)
    if kind in {"true", "false"}:
        return kind == "true"
    if kind == "none":
        return None
    if kind == "string":
        return _string(node)
    if kind == "identifier":
        return consts.get((node.text or b"").decode("utf-8", "replace"), UNKNOWN)
    if kind == "parenthesized_expression" and node.named_children:
        return _fold(node.named_children[0], consts, depth + 1)
    if kind == "binary_operator":
        return _binary(node, consts, depth)
    if kind == "comparison_operator":
        return _compare(node, consts, depth)
    if kind == "not_operator":
        inner = _fold(node.child_by_field_name("argument"), consts, depth + 1)
        return UNKNOWN if inner is UNKNOWN else not inner
    if kind == "boolean_operator":
        return _boolean(node, consts, depth)
    if kind == "subscript":
        return _index(node, consts, depth)
    if kind == "call":
        return _len(node, consts, depth)
    return UNKNOWN


def _string(node: Any) -> Any:
    parts = []
    for child in node.named_children:
        if child.type == "interpolation":
            return UNKNOWN
        if child.type == "string_content":
            parts.append((child.text or b"").decode("utf-8", "replace"))
        elif child.type == "escape_sequence":
            text = (child.text or b"").decode("utf-8", "replace")
            parts.append(text[1:] if text[1:2] in {"'", '"', "\\"} else text)
    prefix = (node.text or b"")[:2].lower()
    if b"b" in prefix.split(b"'")[0].split(b'"')[0]:
        return UNKNOWN  # bytes: not folded
    return "".join(parts)


def _binary(node: Any, consts: dict[str, Any], depth: int) -> Any:
    op = node.child_by_field_name("operator")
    fn = ARITHMETIC.get((op.text or b"").decode()) if op is not None else None
    left = _fold(node.child_by_field_name("left"), consts, depth + 1)
    right = _fold(node.child_by_field_name("right"), consts, depth + 1)
    if fn is None or left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if not (isinstance(left, SIMPLE) and isinstance(right, SIMPLE)):
        return UNKNOWN
    if isinstance(left, str) and not isinstance(right, str):
        return UNKNOWN  # `"%s" % x` formatting, `"a" * n`: left alone
    return fn(left, right)


def _compare(node: Any, consts: dict[str, Any], depth: int) -> Any:
    """`a < b`, `a in b`, `a not in b` (one operator; chains are not folded)."""
    operands = node.named_children
    ops = [c for c in node.children if not c.is_named]
    if len(operands) != 2:
        return UNKNOWN
    left, right = (_fold(n, consts, depth + 1) for n in operands)
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    text = " ".join((o.text or b"").decode() for o in ops)
    if text in {"in", "not in"}:
        if not isinstance(right, str) or not isinstance(left, str):
            return UNKNOWN
        return (left in right) == (text == "in")
    if text in {"is", "is not"}:
        return (left is right) == (text == "is") if left is None or right is None else UNKNOWN
    fn = COMPARE.get(text)
    return UNKNOWN if fn is None else fn(left, right)


def _boolean(node: Any, consts: dict[str, Any], depth: int) -> Any:
    op = node.child_by_field_name("operator")
    left = _fold(node.child_by_field_name("left"), consts, depth + 1)
    right = _fold(node.child_by_field_name("right"), consts, depth + 1)
    is_and = op is not None and op.text == b"and"
    if left is not UNKNOWN and (bool(left) != is_and):
        return left  # `False and x`, `True or x`: decided by the left side
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    return right


def _index(node: Any, consts: dict[str, Any], depth: int) -> Any:
    base = _fold(node.child_by_field_name("value"), consts, depth + 1)
    index = node.child_by_field_name("subscript")
    if not isinstance(base, str) or index is None:
        return UNKNOWN
    if index.type == "slice":
        return UNKNOWN
    i = _fold(index, consts, depth + 1)
    return base[i] if isinstance(i, int) and not isinstance(i, bool) else UNKNOWN


def _len(node: Any, consts: dict[str, Any], depth: int) -> Any:
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if fn is None or fn.text != b"len" or args is None or len(args.named_children) != 1:
        return UNKNOWN
    value = _fold(args.named_children[0], consts, depth + 1)
    return len(value) if isinstance(value, str) else UNKNOWN
