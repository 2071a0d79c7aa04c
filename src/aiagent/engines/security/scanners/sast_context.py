"""Context checks that tell safe code from unsafe where a query alone cannot.

A rule lists captures under ``pattern.dynamic``; a match is kept only when each of
them holds a value built at run time. A value is *constant* when it is made only of
literals (strings without interpolation, numbers, booleans), operators joining them,
and ALL_CAPS names (constants by convention), so `"SELECT " + "1"` or
`"SELECT * FROM " + TABLE` is not injection while `"... = " + id` is.
"""

from __future__ import annotations

import re
from typing import Any

# Node kinds that keep a value constant, across the grammars we ship (they share names).
CONSTANT_KINDS = frozenset({
    # strings and their parts
    "string", "string_literal", "string_content", "string_fragment", "string_value",
    "string_start", "string_end", "escape_sequence", "concatenated_string", "string_literal_content",
    "interpreted_string_literal", "interpreted_string_literal_content",
    "raw_string_literal", "raw_string_literal_content", "raw_string", "raw_string_content",
    "verbatim_string_literal", "multiline_string_literal", "multiline_string_fragment",
    "text_block", "encapsed_string", "heredoc", "heredoc_body", "nowdoc", "nowdoc_body",
    "line_string_literal", "line_str_text", "multi_line_string_literal", "multi_line_str_text",
    "template_string", "character_literal", "char_literal", "rune_literal",
    # numbers, booleans, nil
    "integer", "float", "int_literal", "float_literal", "integer_literal", "real_literal",
    "decimal_integer_literal", "hex_integer_literal", "decimal_floating_point_literal",
    "number", "true", "false", "boolean", "boolean_literal", "null", "null_literal", "nil",
    "none",
    # joining literals
    "binary_expression", "binary_operator", "binary", "additive_expression",
    "parenthesized_expression", "parenthesized_statements", "argument", "value_argument",
    "array_creation_expression", "array_initializer", "dimensions", "array_type",
    "type_identifier", "predefined_type", "integral_type",
    "interpolated_string_expression", "interpolation_start", "interpolation_quote",
})
CONSTANT_NAME = re.compile(rb"^[A-Z][A-Z0-9_]+$")
# A call to a pure string formatter is as constant as its arguments (the callee is no data).
CALL_KINDS = frozenset({"call_expression", "method_invocation", "invocation_expression", "call",
                        "function_call_expression"})
FORMATTERS = re.compile(rb"^(fmt\.Sprintf|String\.format|string\.Format|sprintf|str\.format)$")
NAME_KINDS = frozenset({"identifier", "name", "constant", "simple_identifier"})
LITERAL_NAMES = frozenset({b"true", b"false", b"null", b"nil"})  # Kotlin parses these as names


def is_constant(node: Any) -> bool:
    """True when ``node`` can only ever hold one value (see the module docstring)."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in CALL_KINDS:
            arguments = _formatter_arguments(current)
            if arguments is None:
                return False
            stack.extend(arguments)
            continue
        if kind in NAME_KINDS:
            text = current.text or b""
            if text not in LITERAL_NAMES and not CONSTANT_NAME.match(text):
                return False
            continue
        if kind not in CONSTANT_KINDS:
            return False
        if kind == "string_content" and current.text == b"$":
            return False  # Kotlin's "$name" template: '$' and the name are separate parts
        stack.extend(current.named_children)
    return True


def _formatter_arguments(call: Any) -> list[Any] | None:
    """The argument nodes of a call to a known formatter, else None (a call is dynamic)."""
    callee = call.child_by_field_name("function") or call.named_children[0]
    args = call.child_by_field_name("arguments")
    if callee is None or args is None or not FORMATTERS.match(callee.text or b""):
        return None
    return list(args.named_children)


def has_dynamic(captures: dict[str, list[Any]], names: tuple[str, ...]) -> bool:
    """Every named capture holds at least one node that is not constant."""
    for name in names:
        nodes = captures.get(name) or []
        if not any(not is_constant(n) for n in nodes):
            return False
    return True


# A value read through a member (`File(x).name`, `Paths.get(x).getFileName()`) is
# judged with that member: `not_match` sees the widest such chain.
MEMBER_KINDS = frozenset({
    "navigation_expression", "member_expression", "selector_expression", "field_access",
    "member_access_expression", "attribute", "navigation_suffix",
})


def context_text(node: Any) -> bytes:
    """The text ``not_match`` is tested against: the node, widened over member access."""
    current = node
    while current.parent is not None and current.parent.type in MEMBER_KINDS:
        current = current.parent
    parent = current.parent
    if parent is not None and parent.type in {"call_expression", "method_invocation"} \
            and current is not node and parent.child(0) == current:
        current = parent
    return current.text or b""
