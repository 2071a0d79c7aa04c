"""One function (or module) body walked in source order: bindings, values, sink hits.

Assignments at the body's own level replace a name's value; inside a branch or loop they
join with the old value (the branch may not run). Nested functions are not entered here:
they are handed back (``nested``) to be walked with a snapshot of this scope's names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiagent.engines.security.dataflow import value as V
from aiagent.engines.security.dataflow.constfold import UNKNOWN as NOT_KNOWN
from aiagent.engines.security.dataflow.constfold import fold
from aiagent.engines.security.dataflow.names import dotted, resolve, subscript_base
from aiagent.engines.security.dataflow.value import CONSTANT, UNKNOWN, Value

if TYPE_CHECKING:
    from aiagent.engines.security.dataflow.analyzer import FileAnalysis

BUILDERS = frozenset({"format", "format_map", "join", "concat", "replace", "replaceAll",
                      "sprintf", "Sprintf", "fmt.Sprintf", "util.format", "String.format",
                      "vsprintf", "implode", "Join", "strings.Join", "gsub", "sub", "formatted",
                      "strtr", "str_replace"})
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "push", "unshift",
                      "setdefault", "appendleft", "set"})
MAX_VALUE_BYTES = 4_000
CONTAINER_OPS = MUTATORS | {"pop", "remove", "clear"}
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
    collect: list[Any] | None = None  # a summary's walk: sinks its parameters reach
    # Python only: names bound to known constants, lists and dicts whose items are known
    # one by one (constant indexes and keys), and which dicts are ConfigParsers
    consts: dict[str, Any] = field(default_factory=dict)
    seqs: dict[str, list[Value]] = field(default_factory=dict)
    maps: dict[str, dict[Any, Value]] = field(default_factory=dict)
    configs: set[str] = field(default_factory=set)
    weak_made: set[str] = field(default_factory=set)

    # -- statements -------------------------------------------------------------------
    def visit(self, node: Any, weak: bool = False) -> None:
        g = self.fa.grammar
        kind = node.type
        if kind in g.functions:
            self.nested.append(node)
            return
        if kind in BINDING_FREE and not self.fa.holds_candidate(node) and not self._container_call(node):
            return  # an expression with no sink and no binding in it: nothing to learn
        if self.fa.folds and kind in FOLDED and self._visit_known_branch(node, weak):
            return
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
            if self.fa.folds:
                self._container_op(node, weak)
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
            if self.fa.folds and target.type == "identifier" and not augmented:
                self._remember(target, rhs, weak)

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
                old = self.env.get(base)
                self.env[base] = V.join([old, value]) if old is not None else value
                self._store_item(base, target, value, weak)
        elif kind in PATTERN_PARTS or kind in {"lexical_declaration", "variable_declaration"}:
            for child in target.named_children:
                if kind == "pair_pattern" and child == target.child_by_field_name("key"):
                    continue
                if kind == "assignment_pattern" and child != target.child_by_field_name("left"):
                    continue
                self.bind(child, value, weak)

    def _set(self, name: str, value: Value, weak: bool) -> None:
        self.consts.pop(name, None)
        self.seqs.pop(name, None)
        self.maps.pop(name, None)
        old = self.env.get(name)
        self.env[name] = V.join([old, value]) if weak and old is not None else value

    # -- Python: known constants, containers and branches ------------------------------
    def _container_call(self, node: Any) -> bool:
        """`lst.append(x)`, `conf.set(...)`: a call that changes a tracked value."""
        return node.type == "call" and _method(node)[1] in CONTAINER_OPS

    def _remember(self, target: Any, rhs: Any, weak: bool) -> None:
        """After `name = rhs`: its constant value, or its items when rhs is a literal. A
        container made in a branch is followed in that branch (`weak_made`)."""
        name = _name(target)
        known = fold(rhs, self.consts)
        self.weak_made.discard(name)
        if weak:
            self.weak_made.add(name)
        if known is not NOT_KNOWN:
            if not weak:
                self.consts[name] = known
        elif rhs.type == "list" and all(c.type not in {"list_splat", "comment"} for c in rhs.named_children):
            self.seqs[name] = [self.eval(c) for c in rhs.named_children]
        elif rhs.type == "dictionary":
            items = {}
            for pair in rhs.named_children:
                key = fold(pair.child_by_field_name("key"), self.consts) if pair.type == "pair" else NOT_KNOWN
                if key is NOT_KNOWN:
                    return
                items[key] = self.eval(pair.child_by_field_name("value"))
            self.maps[name] = items
        elif rhs.type == "call" and _name(rhs.child_by_field_name("function")).endswith("ConfigParser"):
            self.maps[name] = {}
            self.configs.add(name)

    def _key(self, node: Any) -> Any:
        return fold(node, self.consts) if node is not None else NOT_KNOWN

    def _store_item(self, base: str, target: Any, value: Value, weak: bool) -> None:
        """`m["k"] = v` / `lst[1] = v` on a tracked dict or list."""
        key = self._key(target.child_by_field_name("subscript"))
        if base in self.maps and key is not NOT_KNOWN:
            old = self.maps[base].get(key)
            self.maps[base][key] = V.join([old, value]) if weak and old is not None else value
        elif base in self.seqs and isinstance(key, int) and -len(self.seqs[base]) <= key < len(self.seqs[base]):
            old = self.seqs[base][key]
            self.seqs[base][key] = V.join([old, value]) if weak else value
        else:
            self.seqs.pop(base, None)
            self.maps.pop(base, None)

    def _item(self, base: Any, index: Any) -> Value | None:
        """The known value of `m["k"]` / `lst[1]`, or None."""
        name = _name(base) if base is not None and base.type == "identifier" else ""
        key = self._key(index) if name in self.seqs or name in self.maps else NOT_KNOWN
        if key is NOT_KNOWN:
            return None
        if name in self.maps:
            return self.maps[name].get(key)
        items = self.seqs[name]
        ok = isinstance(key, int) and not isinstance(key, bool) and -len(items) <= key < len(items)
        return items[key] if ok else None

    def _container_op(self, node: Any, weak: bool) -> None:
        name, method = _method(node)
        if not name or (name not in self.seqs and name not in self.maps):
            return
        args = _positional(node)
        if (weak and name not in self.weak_made) or method not in {
                "append", "pop", "insert", "set", "get", "add_section"}:
            self.seqs.pop(name, None)  # changed in a way not followed: items unknown
            self.maps.pop(name, None)
            return
        if name in self.seqs:
            self._seq_op(name, method, args)
        elif method == "set" and name in self.configs and len(args) == 3:
            key = tuple(self._key(a) for a in args[:2])
            if NOT_KNOWN in key:
                self.maps.pop(name, None)
            else:
                self.maps[name][key] = self.eval(args[2])

    def _seq_op(self, name: str, method: str, args: list[Any]) -> None:
        items = self.seqs[name]
        keys = [self._key(a) for a in args]
        if method == "append" and len(args) == 1:
            items.append(self.eval(args[0]))
        elif method == "pop" and (not keys or isinstance(keys[0], int)) and items:
            i = keys[0] if keys else -1
            if -len(items) <= i < len(items):
                items.pop(i)
            else:
                self.seqs.pop(name, None)
        elif method == "insert" and len(args) == 2 and isinstance(keys[0], int):
            items.insert(keys[0], self.eval(args[1]))
        elif method != "get":
            self.seqs.pop(name, None)

    def known_get(self, node: Any) -> Value | None:
        """`conf.get("s", "k")` / `m.get("k")` on a tracked ConfigParser or dict."""
        name, method = _method(node)
        if method != "get" or name not in self.maps:
            return None
        args = _positional(node)
        if name in self.configs:
            key: Any = tuple(self._key(a) for a in args[:2]) if len(args) >= 2 else NOT_KNOWN
        else:
            key = self._key(args[0]) if args else NOT_KNOWN
        if key is NOT_KNOWN or (isinstance(key, tuple) and NOT_KNOWN in key):
            return None
        return self.maps[name].get(key)

    def _visit_known_branch(self, node: Any, weak: bool) -> bool:
        """Walk only the arm of an `if`/`match` that runs, when that is known; True if done."""
        if node.type == "match_statement":
            return self._visit_known_case(node, weak)
        condition = node.child_by_field_name("condition")
        taken = fold(condition, self.consts) if condition is not None else NOT_KNOWN
        if taken is NOT_KNOWN:
            return False
        if taken:
            body = node.child_by_field_name("consequence")
            if body is not None:
                self.visit(body, weak)
            return True
        rest = [c for c in node.named_children if c.type in {"elif_clause", "else_clause"}]
        for i, clause in enumerate(rest):
            if clause.type == "else_clause":
                body = clause.child_by_field_name("body") or (clause.named_children or [None])[-1]
                if body is not None:
                    self.visit(body, weak)
                return True
            cond = fold(clause.child_by_field_name("condition"), self.consts)
            if cond is NOT_KNOWN:
                for other in rest[i:]:
                    self.visit(other, True)
                return True
            if cond:
                body = clause.child_by_field_name("consequence")
                if body is not None:
                    self.visit(body, weak)
                return True
        return True

    def _visit_known_case(self, node: Any, weak: bool) -> bool:
        subject = fold(node.child_by_field_name("subject"), self.consts)
        body = node.child_by_field_name("body")
        if subject is NOT_KNOWN or body is None:
            return False
        for clause in body.named_children:
            if clause.type != "case_clause":
                continue
            patterns = [p for p in clause.named_children if p.type == "case_pattern"]
            values = [_case_value(p, self.consts) for p in patterns]
            if any(v is _NO_FOLD for v in values) or clause.child_by_field_name("guard") is not None:
                return False
            if any(v is _WILDCARD or v == subject for v in values):
                consequence = clause.child_by_field_name("consequence")
                if consequence is not None:
                    self.visit(consequence, weak)
                return True
        return True

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
        if kind == "conditional_expression" and self.fa.folds and len(children) == 3:
            taken = fold(children[1], self.consts)
            if taken is not NOT_KNOWN:
                return self.eval(children[0] if taken else children[2])
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
        if self.fa.folds and node.type == "subscript":
            known = self._item(node.child_by_field_name("value"), node.child_by_field_name("subscript"))
            if known is not None:
                return known
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


FOLDED = frozenset({"if_statement", "match_statement"})


def _name(node: Any) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _method(node: Any) -> tuple[str, str]:
    """(receiver name, method) of `name.method(...)`, else ("", "")."""
    fn = node.child_by_field_name("function")
    if fn is None or fn.type != "attribute":
        return "", ""
    obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
    if obj is None or obj.type != "identifier":
        return "", ""
    return _name(obj), _name(attr)


def _positional(node: Any) -> list[Any]:
    args = node.child_by_field_name("arguments")
    return [a for a in (args.named_children if args is not None else [])
            if a.type not in {"keyword_argument", "comment"}]


_WILDCARD: Any = object()
_NO_FOLD: Any = object()


def _case_value(pattern: Any, consts: dict[str, Any]) -> Any:
    """A case pattern's literal (`case 'A' | 'B'` has several patterns), `_`, or _NO_FOLD."""
    if not pattern.named_children:
        return _WILDCARD if (pattern.text or b"").strip() == b"_" else _NO_FOLD
    inner = pattern.named_children[0]
    if inner.type in {"string", "integer", "true", "false", "none"}:
        value = fold(inner, consts)
        return _NO_FOLD if value is NOT_KNOWN else value
    return _NO_FOLD
