"""Run many tree-sitter rules over one tree in a single pass.

All rules for a language are joined into one query; each pattern index maps back to
its rule by the byte range its text occupies in the joined source.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.scanners.sast_rules import SastRule
from aiagent.infra.syntax.treesitter import get_language

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
    """The joined query of every tree-sitter rule for one language, optionally followed by
    ``extra`` patterns (the taint engine's) so one cursor pass serves both: a query pass
    costs a walk of the whole tree whatever its patterns, so one pass instead of two."""

    def __init__(self, language: str, rules: list[SastRule], extra: str = "") -> None:
        self.language = language
        self.rules = rules
        parts, self._starts = [], []
        offset = 0
        for rule in rules:
            self._starts.append(offset)
            text = rule.query.strip() + "\n"
            parts.append(text)
            offset += len(text.encode())
        self._extra_start = offset
        self.query = _compile_joined(language, rules, "".join(parts), self._starts, offset, extra) \
            if rules or extra else None

    def matches(self, root: Any) -> Iterator[tuple[SastRule, dict[str, list[Any]]]]:
        return iter(self.run(root)[0])

    def run(self, root: Any) -> tuple[list[tuple[SastRule, dict[str, list[Any]]]],
                                      dict[str, list[Any]]]:
        """(rule, captures) of each rule match, and the nodes of the extra patterns by
        capture name (in no particular order, as ``QueryCursor.captures`` gives them)."""
        import tree_sitter

        if self.query is None:
            return [], {}
        found: list[tuple[SastRule, dict[str, list[Any]]]] = []
        extra: dict[str, list[Any]] = {}
        start_of = self.query.start_byte_for_pattern
        for index, captures in tree_sitter.QueryCursor(self.query).matches(root):
            start = start_of(index)
            if start >= self._extra_start:
                for name, nodes in captures.items():
                    extra.setdefault(name, []).extend(nodes)
            else:
                found.append((self.rules[bisect_right(self._starts, start) - 1], captures))
        return found, extra


def _compile_joined(language: str, rules: list[SastRule], text: str, starts: list[int],
                    end: int, extra: str) -> Any:
    """The joined query. Each rule must compile on its own too (a bad rule is reported by
    its id): when the joined query compiles and each of its patterns lies within one rule's
    text, each rule's text is exactly its own patterns, so the rules are not compiled one by
    one (that doubled the start-up cost); otherwise they are, and the bad one is named."""
    import tree_sitter

    try:
        query = tree_sitter.Query(get_language(language), text + extra)
    except (tree_sitter.QueryError, ValueError):
        query = None
    if query is None or not _patterns_within_rules(query, starts, end, len(rules)):
        for rule in rules:
            compile_rule(rule, language)
        if query is None:
            query = tree_sitter.Query(get_language(language), text + extra)
    return query


def _patterns_within_rules(query: Any, starts: list[int], end: int, count: int) -> bool:
    owners = set()
    for index in range(query.pattern_count):
        start, stop = query.start_byte_for_pattern(index), query.end_byte_for_pattern(index)
        if start >= end:
            continue  # an extra pattern
        owner = bisect_right(starts, start) - 1
        limit = starts[owner + 1] if owner + 1 < count else end
        if stop > limit:
            return False
        owners.add(owner)
    return len(owners) == count


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
