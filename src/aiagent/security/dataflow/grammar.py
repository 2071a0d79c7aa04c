"""Which tree-sitter node kinds play which part, per grammar family.

The taint walker is one algorithm over every grammar; this table tells it, for a family
of grammars, which kinds are strings, names, member accesses, calls, assignments,
functions and branches, and which fields hold their parts. Facts about the grammars,
not rules: sources, sinks and sanitizers are data (``rules/taint/*.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Grammar:
    strings: frozenset[str]                  # literal strings (may hold interpolations)
    interpolations: frozenset[str]           # the substitution nodes inside a string
    constants: frozenset[str]                # numbers, booleans, null, comparisons
    names: frozenset[str]                    # plain identifiers
    members: dict[str, tuple[str, str]]      # kind -> (object field, member field)
    subscripts: dict[str, str]               # kind -> object field
    calls: dict[str, tuple[str, str]]        # kind -> (callee field, arguments field)
    binaries: frozenset[str]                 # kinds with left/operator/right
    string_ops: frozenset[str]               # operators that build strings
    compare_ops: frozenset[str]              # operators whose result is a boolean
    assignments: dict[str, tuple[str, str]]  # kind -> (target field, value field)
    augmented: frozenset[str]                # `x += y` kinds (their value builds on x)
    loops: dict[str, tuple[str, str]]        # kind -> (target field, iterable field)
    functions: frozenset[str]
    branches: frozenset[str]                 # bodies that may not run: weak updates
    returns: frozenset[str]
    keyword_args: frozenset[str]             # Python `name=value`
    self_names: frozenset[str] = field(default=frozenset({"self", "this"}))


PYTHON = Grammar(
    strings=frozenset({"string", "concatenated_string"}),
    interpolations=frozenset({"interpolation"}),
    constants=frozenset({"integer", "float", "true", "false", "none", "comparison_operator",
                         "not_operator", "ellipsis"}),
    names=frozenset({"identifier"}),
    members={"attribute": ("object", "attribute")},
    subscripts={"subscript": "value"},
    calls={"call": ("function", "arguments")},
    binaries=frozenset({"binary_operator"}),
    string_ops=frozenset({"+", "%"}),
    compare_ops=frozenset(),
    assignments={"assignment": ("left", "right"), "augmented_assignment": ("left", "right"),
                 "named_expression": ("name", "value")},
    augmented=frozenset({"augmented_assignment"}),
    loops={"for_statement": ("left", "right"), "for_in_clause": ("left", "right")},
    functions=frozenset({"function_definition", "lambda"}),
    branches=frozenset({"if_statement", "elif_clause", "else_clause", "for_statement",
                        "while_statement", "try_statement", "except_clause", "finally_clause",
                        "match_statement", "case_clause", "conditional_expression"}),
    returns=frozenset({"return_statement"}),
    keyword_args=frozenset({"keyword_argument"}),
)

JAVASCRIPT = Grammar(
    strings=frozenset({"string", "template_string"}),
    interpolations=frozenset({"template_substitution"}),
    constants=frozenset({"number", "true", "false", "null", "undefined", "regex"}),
    names=frozenset({"identifier", "shorthand_property_identifier"}),
    members={"member_expression": ("object", "property")},
    subscripts={"subscript_expression": "object"},
    calls={"call_expression": ("function", "arguments"), "new_expression": ("constructor", "arguments")},
    binaries=frozenset({"binary_expression"}),
    string_ops=frozenset({"+"}),
    compare_ops=frozenset({"==", "===", "!=", "!==", "<", ">", "<=", ">=", "instanceof", "in"}),
    assignments={"variable_declarator": ("name", "value"), "assignment_expression": ("left", "right"),
                 "augmented_assignment_expression": ("left", "right")},
    augmented=frozenset({"augmented_assignment_expression"}),
    loops={"for_in_statement": ("left", "right")},
    functions=frozenset({"function_declaration", "function_expression", "function", "arrow_function",
                         "method_definition", "generator_function_declaration",
                         "generator_function"}),
    branches=frozenset({"if_statement", "else_clause", "for_statement", "for_in_statement",
                        "while_statement", "do_statement", "try_statement", "catch_clause",
                        "finally_clause", "switch_statement", "switch_case", "switch_default",
                        "ternary_expression"}),
    returns=frozenset({"return_statement"}),
    keyword_args=frozenset(),
)

GRAMMAR_FAMILIES = {"python": PYTHON, "javascript": JAVASCRIPT, "typescript": JAVASCRIPT,
                    "tsx": JAVASCRIPT}
