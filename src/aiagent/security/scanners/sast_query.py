"""Run many tree-sitter rules over one tree in a single pass.

All rules for a language are joined into one query; each pattern index maps back to
its rule by the byte range its text occupies in the joined source.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from aiagent.security.errors import SecurityConfigError
from aiagent.security.scanners.sast_rules import SastRule
from aiagent.syntax.treesitter import get_language

FUNCTION_TYPES = frozenset({
    "function_definition", "function_declaration", "method_definition", "method_declaration",
    "function_expression", "arrow_function", "method", "singleton_method", "func_literal",
    "constructor_declaration", "function_item", "init_declaration",
})


def compile_rule(rule: SastRule, language: str) -> Any:
    import tree_sitter

    try:
        return tree_sitter.Query(get_language(language), rule.query)
    except (tree_sitter.QueryError, ValueError) as exc:
        raise SecurityConfigError(rule.source, f"{rule.id}.pattern.query ({language})",
                                  str(exc).splitlines()[0]) from None


class LanguageQuery:
    """The joined query of every tree-sitter rule for one language."""

    def __init__(self, language: str, rules: list[SastRule]) -> None:
        import tree_sitter

        self.language = language
        self.rules = rules
        parts, self._starts = [], []
        offset = 0
        for rule in rules:
            compile_rule(rule, language)
            self._starts.append(offset)
            text = rule.query.strip() + "\n"
            parts.append(text)
            offset += len(text.encode())
        self.query = tree_sitter.Query(get_language(language), "".join(parts)) if rules else None

    def matches(self, root: Any) -> Iterator[tuple[SastRule, dict[str, list[Any]]]]:
        import tree_sitter

        if self.query is None:
            return
        cursor = tree_sitter.QueryCursor(self.query)
        for index, captures in cursor.matches(root):
            start = self.query.start_byte_for_pattern(index)
            yield self.rules[bisect_right(self._starts, start) - 1], captures


def report_node(rule: SastRule, captures: dict[str, list[Any]]) -> Any:
    if rule.report and captures.get(rule.report):
        return captures[rule.report][0]
    nodes = [n for group in captures.values() for n in group]
    return max(nodes, key=lambda n: n.end_byte - n.start_byte)


def enclosing_function(node: Any) -> str:
    current = node.parent
    while current is not None:
        if current.type in FUNCTION_TYPES:
            name = current.child_by_field_name("name")
            return name.text.decode("utf-8", "replace") if name is not None else ""
        current = current.parent
    return ""
