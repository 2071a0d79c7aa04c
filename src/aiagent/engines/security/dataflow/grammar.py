"""Which tree-sitter node kinds play which part, per grammar family.

The taint walker is one algorithm over every grammar; this table tells it, for a family
of grammars, which kinds are strings, names, member accesses, calls, assignments,
functions and branches, and which fields hold their parts. Facts about the grammars,
not rules: sources, sinks and sanitizers are data (``rules/taint/*.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    # Kinds that name a type, class or constant: constant as values, heads of dotted names.
    constant_names: frozenset[str] = frozenset()
    capitalized_types: bool = False          # Java: `Paths.get` is a class's static method
    interpolation_is_value: bool = False     # PHP: "$name" holds the variable node itself
    statement_bodies: frozenset[str] = frozenset({"block", "statement_block"})
    implicit_return: bool = False            # Ruby: a body's last expression is its value
    annotated_params: str = ""               # Java: the kind holding parameter annotations


def callee(node: Any, g: Grammar) -> Any:
    """The callee of a call: a field, the call itself (Java/Ruby/PHP methods), or None."""
    callee_field = g.calls[node.type][0]
    if not callee_field:
        return node
    if callee_field.startswith("="):
        return None
    return node.child_by_field_name(callee_field)


def fixed_name(node: Any, g: Grammar) -> str:
    """The name of a keyword sink (PHP `echo`, `include`, backticks), else ""."""
    callee_field = g.calls[node.type][0]
    return callee_field[1:] if callee_field.startswith("=") else ""


def arguments_node(node: Any, g: Grammar) -> Any:
    """The node whose named children are the arguments (the call itself for keyword sinks)."""
    args_field = g.calls[node.type][1]
    return node.child_by_field_name(args_field) if args_field else node


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

JAVA = Grammar(
    strings=frozenset({"string_literal", "text_block"}),
    interpolations=frozenset(),
    constants=frozenset({"decimal_integer_literal", "hex_integer_literal", "decimal_floating_point_literal",
                         "true", "false", "null_literal", "character_literal", "class_literal",
                         "instanceof_expression"}),
    names=frozenset({"identifier"}),
    members={"field_access": ("object", "field"), "method_invocation": ("object", "name")},
    subscripts={"array_access": "array"},
    calls={"method_invocation": ("", "arguments"), "object_creation_expression": ("type", "arguments")},
    binaries=frozenset({"binary_expression"}),
    string_ops=frozenset({"+"}),
    compare_ops=frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"}),
    assignments={"variable_declarator": ("name", "value"), "assignment_expression": ("left", "right")},
    augmented=frozenset(),
    loops={"enhanced_for_statement": ("name", "value")},
    functions=frozenset({"method_declaration", "constructor_declaration", "lambda_expression"}),
    branches=frozenset({"if_statement", "for_statement", "enhanced_for_statement", "while_statement",
                        "do_statement", "try_statement", "catch_clause", "finally_clause",
                        "switch_expression", "switch_block_statement_group", "ternary_expression"}),
    returns=frozenset({"return_statement"}),
    keyword_args=frozenset(),
    constant_names=frozenset({"type_identifier", "scoped_type_identifier", "generic_type"}),
    capitalized_types=True,
    statement_bodies=frozenset({"block", "constructor_body"}),
    annotated_params="modifiers",
)

GO = Grammar(
    strings=frozenset({"interpreted_string_literal", "raw_string_literal"}),
    interpolations=frozenset(),
    constants=frozenset({"int_literal", "float_literal", "true", "false", "nil", "rune_literal",
                         "iota"}),
    names=frozenset({"identifier", "package_identifier"}),
    members={"selector_expression": ("operand", "field")},
    subscripts={"index_expression": "operand", "slice_expression": "operand"},
    calls={"call_expression": ("function", "arguments")},
    binaries=frozenset({"binary_expression"}),
    string_ops=frozenset({"+"}),
    compare_ops=frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"}),
    assignments={"short_var_declaration": ("left", "right"), "assignment_statement": ("left", "right"),
                 "var_spec": ("name", "value"), "const_spec": ("name", "value")},
    augmented=frozenset(),
    loops={"range_clause": ("left", "right")},
    functions=frozenset({"function_declaration", "method_declaration", "func_literal"}),
    branches=frozenset({"if_statement", "for_statement", "expression_switch_statement",
                        "type_switch_statement", "select_statement", "expression_case",
                        "default_case", "type_case", "communication_case"}),
    returns=frozenset({"return_statement"}),
    keyword_args=frozenset(),
)

PHP = Grammar(
    strings=frozenset({"string", "encapsed_string", "heredoc", "nowdoc", "shell_command_expression"}),
    interpolations=frozenset({"variable_name", "member_access_expression", "subscript_expression",
                              "dynamic_variable_name"}),
    constants=frozenset({"integer", "float", "boolean", "null", "class_constant_access_expression"}),
    names=frozenset({"variable_name"}),
    members={"member_access_expression": ("object", "name"), "member_call_expression": ("object", "name"),
             "nullsafe_member_call_expression": ("object", "name"),
             "scoped_call_expression": ("scope", "name"),
             "nullsafe_member_access_expression": ("object", "name")},
    subscripts={"subscript_expression": ""},
    calls={"function_call_expression": ("function", "arguments"),
           "member_call_expression": ("", "arguments"),
           "nullsafe_member_call_expression": ("", "arguments"),
           "scoped_call_expression": ("", "arguments"),
           "object_creation_expression": ("=new", ""),
           "echo_statement": ("=echo", ""), "print_intrinsic": ("=print", ""),
           "include_expression": ("=include", ""), "include_once_expression": ("=include_once", ""),
           "require_expression": ("=require", ""), "require_once_expression": ("=require_once", ""),
           "shell_command_expression": ("=shell_exec", "")},
    binaries=frozenset({"binary_expression"}),
    string_ops=frozenset({"."}),
    compare_ops=frozenset({"==", "===", "!=", "!==", "<", ">", "<=", ">=", "&&", "||", "and", "or",
                           "instanceof"}),
    assignments={"assignment_expression": ("left", "right"),
                 "augmented_assignment_expression": ("left", "right")},
    augmented=frozenset({"augmented_assignment_expression"}),
    loops={},
    functions=frozenset({"function_definition", "method_declaration", "anonymous_function",
                         "anonymous_function_creation_expression", "arrow_function"}),
    branches=frozenset({"if_statement", "else_clause", "else_if_clause", "foreach_statement",
                        "for_statement", "while_statement", "do_statement", "try_statement",
                        "catch_clause", "finally_clause", "switch_statement", "case_statement",
                        "default_statement", "conditional_expression", "match_expression"}),
    returns=frozenset({"return_statement"}),
    keyword_args=frozenset(),
    self_names=frozenset({"$this", "self", "static"}),
    constant_names=frozenset({"name", "qualified_name"}),
    interpolation_is_value=True,
    statement_bodies=frozenset({"compound_statement"}),
)

RUBY = Grammar(
    strings=frozenset({"string", "subshell", "heredoc_body", "bare_string"}),
    interpolations=frozenset({"interpolation"}),
    constants=frozenset({"integer", "float", "true", "false", "nil", "simple_symbol",
                         "hash_key_symbol", "delimited_symbol", "regex"}),
    names=frozenset({"identifier", "instance_variable", "global_variable", "class_variable"}),
    members={"call": ("receiver", "method"), "scope_resolution": ("scope", "name")},
    subscripts={"element_reference": "object"},
    calls={"call": ("", "arguments"), "subshell": ("=`", "")},
    binaries=frozenset({"binary"}),
    string_ops=frozenset({"+", "%", "<<"}),
    compare_ops=frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||", "and", "or", "=~", "!~"}),
    assignments={"assignment": ("left", "right"), "operator_assignment": ("left", "right")},
    augmented=frozenset({"operator_assignment"}),
    loops={"for": ("pattern", "value")},
    functions=frozenset({"method", "singleton_method", "lambda", "block", "do_block"}),
    branches=frozenset({"if", "unless", "elsif", "else", "while", "until", "for", "case", "when",
                        "begin", "rescue", "ensure", "conditional", "if_modifier",
                        "unless_modifier", "while_modifier", "until_modifier", "rescue_modifier"}),
    returns=frozenset({"return"}),
    keyword_args=frozenset({"pair"}),
    constant_names=frozenset({"constant"}),
    statement_bodies=frozenset({"body_statement", "block_body"}),
    implicit_return=True,
)

GRAMMAR_FAMILIES = {"python": PYTHON, "javascript": JAVASCRIPT, "typescript": JAVASCRIPT,
                    "tsx": JAVASCRIPT, "java": JAVA, "go": GO, "php": PHP, "ruby": RUBY}
