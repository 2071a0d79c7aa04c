"""One function (or module) body walked in source order: bindings, values, sink hits.

Assignments at the body's own level replace a name's value; inside a branch or loop they
join with the old value (the branch may not run). Nested functions are not entered here:
they are handed back (``nested``) to be walked with a snapshot of this scope's names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.security.dataflow import value as V
from aiagent.security.dataflow.names import dotted, resolve, subscript_base
from aiagent.security.dataflow.value import CONSTANT, UNKNOWN, Value

if TYPE_CHECKING:
    from aiagent.security.dataflow.analyzer import FileAnalysis

BUILDERS = frozenset({"format", "format_map", "join", "concat", "replace", "replaceAll",
                      "sprintf", "Sprintf", "fmt.Sprintf", "util.format", "String.format",
                      "vsprintf", "implode", "Join", "strings.Join", "gsub", "sub", "formatted",
                      "strtr", "str_replace"})
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "push", "unshift",
                      "setdefault", "appendleft", "set"})
MAX_VALUE_BYTES = 4_000
BINDING_FREE = frozenset({
    "dictionary", "list", "tuple", "set", "string", "concatenated_string", "pair", "call",
    "argument_list", "binary_operator", "attribute", "subscript", "keyword_argument",
    "object", "array", "template_string", "arguments", "call_expression", "member_expression",
    "binary_expression", "new_expression", "subscript_expression",
})
GUARDED = frozenset({"if_statement", "elif_clause", "while_statement", "if", "elsif", "unless",
                     "else_if_clause"})
COMPREHENSIONS = frozenset({"list_comprehension", "generator_expression", "set_comprehension",
                            "dictionary_comprehension"})
PATTERN_PARTS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "array_pattern",
                           "object_pattern", "tuple", "list", "list_splat_pattern",
                           "rest_pattern", "pair_pattern", "assignment_pattern",
                           "expression_list"})


@dataclass
class Scope:
    fa: FileAnalysis
    env: dict[str, Value]
    emit: bool
    returns: list[Value] = field(default_factory=list)
    nested: list[Any] = field(default_factory=list)
    html_route: bool = False  # a web handler whose returned string is the HTML response

    # -- statements -------------------------------------------------------------------
    def visit(self, node: Any, weak: bool = False) -> None:
        g = self.fa.grammar
        kind = node.type
        if kind in g.functions:
            self.nested.append(node)
            return
        if kind in BINDING_FREE and not self.fa.holds_candidate(node):
            return  # an expression with no sink and no binding in it: nothing to learn
        if kind in g.assignments:
            self._assign(node, weak)
            return
        if kind in g.loops:
            target_field, iter_field = g.loops[kind]
            iterable = node.child_by_field_name(iter_field)
            if iterable is not None:
                self.visit(iterable, weak)
                self.bind(node.child_by_field_name(target_field), self.eval(iterable), True)
            for child in node.named_children:
                if child is not iterable and child != iterable:
                    self.visit(child, True)
            return
        if kind == "as_pattern" and node.named_children:
            self.visit(node.named_children[0], weak)
            self.bind(node.child_by_field_name("alias"), self.eval(node.named_children[0]), weak)
            return
        if kind in GUARDED:
            condition = node.child_by_field_name("condition")
            if condition is not None:
                self.visit(condition, weak)
                self.fa.apply_guards(self, condition)
        if kind in g.calls:
            self.fa.check_call(self, node)
        elif kind in g.returns:
            for child in node.named_children:
                self.returns.append(self.eval(child))
                if self.html_route and self.emit:
                    self.fa.check_return(self, node, child)
        inner = weak or kind in g.branches
        for child in node.named_children:
            self.visit(child, inner)

    def _assign(self, node: Any, weak: bool) -> None:
        g = self.fa.grammar
        target_field, value_field = g.assignments[node.type]
        target, rhs = node.child_by_field_name(target_field), node.child_by_field_name(value_field)
        if rhs is None:
            return
        self.visit(rhs, weak)
        # A huge literal table (a lexer's token map) is not walked: it holds no request data.
        value = self.eval(rhs) if rhs.end_byte - rhs.start_byte < MAX_VALUE_BYTES else UNKNOWN
        op = node.child_by_field_name("operator")
        augmented = node.type in g.augmented or (op is not None and op.text not in {b"=", b":="})
        if augmented and target is not None:
            value = V.build([self.eval(target), value])
        if target is not None:
            self.fa.check_assign(self, node, target, value)
            self.bind(target, value, weak)

    def bind(self, target: Any, value: Value, weak: bool) -> None:
        if target is None:
            return
        g = self.fa.grammar
        kind = target.type
        if kind in g.names or kind in {"shorthand_property_identifier_pattern", "as_pattern_target"}:
            name = (target.text or b"").decode("utf-8", "replace")
            if kind == "as_pattern_target" and target.named_children:
                return self.bind(target.named_children[0], value, weak)
            self._set(name, value, weak)
        elif kind in g.members:
            path = dotted(target, g)
            if path:
                self._set(path, value, weak)
                if value.tainted:
                    self._set(path.split(".")[0], value, True)
        elif kind in g.subscripts:
            base = dotted(target, g)
            if base:
                self._set(base, value, True)
        elif kind in PATTERN_PARTS or kind in {"lexical_declaration", "variable_declaration"}:
            for child in target.named_children:
                if kind == "pair_pattern" and child == target.child_by_field_name("key"):
                    continue
                if kind == "assignment_pattern" and child != target.child_by_field_name("left"):
                    continue
                self.bind(child, value, weak)

    def _set(self, name: str, value: Value, weak: bool) -> None:
        old = self.env.get(name)
        self.env[name] = V.join([old, value]) if weak and old is not None else value

    # -- expressions ------------------------------------------------------------------
    def eval(self, node: Any) -> Value:
        g = self.fa.grammar
        kind = node.type
        if kind in g.strings:
            return self._string(node)
        if kind in g.constants or kind in g.functions or kind in g.constant_names:
            return CONSTANT
        if kind in g.names:
            return self.lookup(node)
        if kind in g.calls:
            return self.fa.call_value(self, node)
        if kind in g.members or kind in g.subscripts:
            return self._access(node)
        if kind in g.binaries:
            return self._binary(node)
        if kind in {"property_identifier", "private_property_identifier"}:
            return V.literal((node.text or b"").decode("utf-8", "replace"))
        if kind in g.keyword_args:
            inner = node.child_by_field_name("value")
            return self.eval(inner) if inner is not None else UNKNOWN
        children = node.named_children
        if not children:
            return UNKNOWN
        if kind in COMPREHENSIONS:
            return self._comprehension(children)
        return V.join(self.eval(c) for c in children)

    def _comprehension(self, children: list[Any]) -> Value:
        """`[body for x in items if cond]`: x holds the items' value; the result is the body's."""
        g = self.fa.grammar
        for clause in children[1:]:
            if clause.type in g.loops:
                target_field, iter_field = g.loops[clause.type]
                iterable = clause.child_by_field_name(iter_field)
                if iterable is not None:
                    self.bind(clause.child_by_field_name(target_field), self.eval(iterable), False)
        return self.eval(children[0])

    def _string(self, node: Any) -> Value:
        g = self.fa.grammar
        parts: list[Value] = []
        interpolated = False
        for child in node.named_children:
            if child.type in g.interpolations:
                interpolated = True
                inner = child if g.interpolation_is_value else (
                    child.child_by_field_name("expression")
                    or (child.named_children[0] if child.named_children else None))
                parts.append(self.eval(inner) if inner is not None else CONSTANT)
            elif child.type in g.strings:
                sub = self._string(child)
                interpolated = interpolated or sub.dynamic
                parts.append(sub)
            elif child.type not in {"string_start", "string_end", "type_conversion",
                                    "format_specifier"}:
                parts.append(V.literal((child.text or b"").decode("utf-8", "replace")))
        return V.build(parts) if interpolated else V.literal("".join(p.text for p in parts))

    def _binary(self, node: Any) -> Value:
        g = self.fa.grammar
        op = node.child_by_field_name("operator")
        op_text = (op.text or b"").decode() if op is not None else ""
        if op_text in g.compare_ops:
            return CONSTANT
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        parts = [self.eval(n) for n in (left, right) if n is not None]
        return V.build(parts) if op_text in g.string_ops else V.join(parts)

    def lookup(self, node: Any) -> Value:
        name = (node.text or b"").decode("utf-8", "replace")
        found = self.env.get(name)
        if found is not None:
            return found
        kinds = self.fa.spec.source_kinds(name)
        if kinds:
            return V.source(kinds)
        if name in self.fa.aliases or (name.isupper() and len(name) > 1) or (
                self.fa.grammar.capitalized_types and name[:1].isupper()):
            return CONSTANT
        return UNKNOWN

    def _access(self, node: Any) -> Value:
        g = self.fa.grammar
        path = dotted(node, g)
        if path:
            found = self.env.get(path)
            if found is not None and node.type in g.members:
                return found
            kinds = self.fa.spec.source_kinds(path) | self.fa.spec.source_kinds(
                resolve(path, self.fa.aliases))
            if kinds:
                return V.source(kinds)
            head = path.split(".")[0]
            if head in self.fa.aliases and head not in self.env:
                last = path.rsplit(".", 1)[-1]
                return CONSTANT if last.isupper() else UNKNOWN
        base_node = node.child_by_field_name(g.members[node.type][0]) if node.type in g.members \
            else subscript_base(node, g)
        if base_node is None:
            return UNKNOWN
        base = self.eval(base_node)
        return Value(base.dynamic, base.sources, base.built, base.cleared, base.text)
