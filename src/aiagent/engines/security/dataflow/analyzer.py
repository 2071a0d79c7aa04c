"""Taint analysis of one parsed file: which sinks receive which values.

Only functions that hold a possible sink call (found by one tree-sitter query over the
sinks' method names) are walked, plus the module body for its constants and top-level
code, plus the local helpers those functions call (once each, as a summary).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cache
from typing import Any

from aiagent.engines.security.dataflow import value as V
from aiagent.engines.security.dataflow.grammar import (
    GRAMMAR_FAMILIES,
    Grammar,
    arguments_node,
    callee,
    fixed_name,
)
from aiagent.engines.security.dataflow.names import (
    IMPORT_QUERIES,
    dotted,
    go_imports,
    in_document_order,
    javascript_imports,
    no_imports,
    python_imports,
    resolve,
)
from aiagent.engines.security.dataflow.scope import BUILDERS, MUTATORS, Scope
from aiagent.engines.security.dataflow.spec import Sink, TaintSpec, spec_for
from aiagent.engines.security.dataflow.value import CONSTANT, UNKNOWN, Value
from aiagent.infra.syntax.treesitter import get_language

PARAM = "~param"
RETURN_SINK = Sink("xss", "return", False, (), None, None, None)
RETURNED_TEXT = frozenset({"identifier", "string", "concatenated_string", "binary_operator",
                           "parenthesized_expression", "subscript"})
LOOKUPS = frozenset({"get", "__getitem__"})
MAX_SUMMARY_DEPTH = 3


@dataclass(frozen=True, slots=True)
class SinkHit:
    sink: Sink
    node: Any
    value: Value
    name: str
    via: Any = None  # the sink inside a local helper this call reaches (the helper's own node)


@dataclass(frozen=True, slots=True)
class Summary:
    base: Value
    through: Value | None  # the result when the arguments flow into it (None: they do not)
    sinks: tuple[SinkHit, ...] = ()  # sinks its parameters reach (values marked ~paramN)


def supported(language: str) -> bool:
    return language in GRAMMAR_FAMILIES and spec_for(language) is not None


def analyze(language: str, root: Any, data: bytes,
            captures: dict[str, list[Any]] | None = None) -> tuple[list[SinkHit], frozenset[str]]:
    """Sink hits in the file, and the names of the functions it defines. ``captures``:
    the nodes of :func:`query_source`'s patterns by capture name, when the caller ran
    them in its own query pass (else they are queried here)."""
    spec = spec_for(language)
    assert spec is not None, language
    if spec.keywords is not None and not any(k in data for k in spec.keywords):
        return [], frozenset()
    fa = FileAnalysis(language, root, spec, captures)
    return fa.run(), frozenset(fa.functions)


class FileAnalysis:
    def __init__(self, language: str, root: Any, spec: TaintSpec,
                 captures: dict[str, list[Any]] | None = None) -> None:
        self.language = language
        self.root = root
        self.spec = spec
        self.grammar: Grammar = GRAMMAR_FAMILIES[language]
        captures = _captures(language, root) if captures is None else _ordered(captures)
        self.aliases = IMPORTS.get(_family(language), no_imports)(root, language, captures.get("i", []))
        self.functions = _function_index(captures.get("f", []), self.grammar)
        self._candidate_nodes = captures.get("c", [])
        self.folds = language == "python"  # constants, containers and dead branches
        self.hits: list[SinkHit] = []
        self._candidates: list[int] = []
        self._summaries: dict[int, Summary | None] = {}
        self._depth = 0
        self._html_routes: set[int] = set()

    def run(self) -> list[SinkHit]:
        self._html_routes = {fn.start_byte for fn in self.functions.values() if self._is_html_route(fn)} \
            if self.spec.html_routes is not None else set()
        self._candidates = sorted([*(n.start_byte for n in self._candidate_nodes if self._may_sink(n)),
                                   *(b + 1 for b in self._html_routes)])
        if self._candidates and self.functions:
            self._add_helper_calls()
        if not self._candidates:
            return []
        module = Scope(self, {}, emit=True)
        try:
            module.visit(self.root)
            pending = [(fn, dict(module.env)) for fn in module.nested]
            while pending:
                fn, env = pending.pop()
                if self.holds_candidate(fn):
                    scope = self._walk_function(fn, env, None, emit=True)
                    pending.extend((inner, dict(scope.env)) for inner in scope.nested)
        except RecursionError:
            pass
        return self.hits

    def _add_helper_calls(self) -> None:
        """Calls of local helpers that hold a sink are candidates too (their summaries may
        report the sink at the call); helpers calling helpers, a few levels deep."""
        g = self.grammar
        calls = [n for n in self._candidate_nodes if n.type in g.calls]
        for _ in range(MAX_SUMMARY_DEPTH):
            sinking = {name for name, fn in self.functions.items() if self.holds_candidate(fn)}
            known = set(self._candidates)
            added = [n.start_byte for n in calls if n.start_byte not in known
                     and self._local_callee(n, sinking) is not None]
            if not added:
                return
            self._candidates = sorted([*self._candidates, *added])

    def _local_callee(self, node: Any, among: Any) -> Any:
        """The local function ``node`` calls (`helper(...)`, `self.helper(...)`), if in ``among``."""
        target = callee(node, self.grammar)
        if target is None:
            return None
        last = target.text if target.type in self.grammar.names else \
            (_member_name(target, self.grammar).encode() if target.type in self.grammar.members else b"")
        if not last or (last or b"").decode("utf-8", "replace") not in among:
            return None
        return self._helper(dotted(target, self.grammar))

    def _helper(self, raw: str) -> Any:
        head, _, rest = raw.partition(".")
        local = rest if head in self.grammar.self_names and "." not in rest else raw
        return self.functions.get(local) if raw and "." not in local else None

    def _may_sink(self, node: Any) -> bool:
        """A call or assignment whose callee/target names a sink of the spec."""
        g = self.grammar
        if node.type in g.calls:
            fixed = fixed_name(node, g)
            if fixed:
                return bool(self.spec.sinks_for(fixed, fixed, False))
            target, assign = callee(node, g), False
        else:
            target, assign = node.child_by_field_name("left"), True
        if target is None or (not (assign and self.spec.wild_assign) and not self._maybe_sink(target)):
            return False
        raw, name = self.names(target)
        return bool(raw) and bool(self.spec.sinks_for(name, raw, assign))

    def _maybe_sink(self, target: Any) -> bool:
        """A pre-check on the callee's last name before its dotted name is built."""
        g, kind = self.grammar, target.type
        if kind in g.members:
            member = target.child_by_field_name(g.members[kind][1])
            last = (member.text or b"") if member is not None else b""
        elif kind in g.names:
            last = target.text or b""
        else:
            return True
        return self.spec.maybe_sink(last, target.text or b"", self.aliases)

    def holds_candidate(self, fn: Any) -> bool:
        """Whether a candidate sink call lies inside ``fn``'s bytes."""
        i = bisect_left(self._candidates, fn.start_byte)
        return i < len(self._candidates) and self._candidates[i] < fn.end_byte

    def _walk_function(self, fn: Any, env: dict[str, Value], param: Value | str | None,
                       emit: bool, collect: list[SinkHit] | None = None) -> Scope:
        """Walk ``fn``; its parameters hold ``param`` (a string: each its own marked source).
        ``collect``: where the sinks reached by marked parameters go (a summary's walk)."""
        scope = Scope(self, env, emit, html_route=emit and fn.start_byte in self._html_routes,
                      collect=collect)
        for i, (name, node) in enumerate(_parameters(fn, self.grammar)):
            if isinstance(param, str):
                scope.env[name] = V.source({f"{param}{i}"})
            else:
                scope.env[name] = param if param is not None else self._param_value(fn, name, node)
        body = fn.child_by_field_name("body")
        if body is not None:
            g = self.grammar
            if body.type in g.strings or body.type not in g.statement_bodies:
                scope.returns.append(scope.eval(body))  # an arrow/lambda expression body
            scope.visit(body)
            if g.implicit_return and body.type in g.statement_bodies and body.named_children:
                scope.returns.append(scope.eval(body.named_children[-1]))
        return scope

    def _param_value(self, fn: Any, name: str, node: Any) -> Value:
        if name in self.spec.route_param_skip or self.spec.route_decorators is None:
            return UNKNOWN
        if self.grammar.annotated_params:
            return V.source({"http"}) if self._annotated(node) else UNKNOWN
        holder = fn.parent
        if holder is None or holder.type != "decorated_definition":
            return UNKNOWN
        for dec in holder.named_children:
            if dec.type != "decorator" or not dec.named_children:
                continue
            call = dec.named_children[0]
            callee = call.child_by_field_name("function") if call.type == "call" else call
            if callee is not None and self.spec.route_decorators.fullmatch(dotted(callee, self.grammar)):
                return V.source({"http"})
        return UNKNOWN

    def _is_html_route(self, fn: Any) -> bool:
        """A handler whose returned string is sent as HTML (Flask's `@app.route`)."""
        holder = fn.parent
        if holder is None or holder.type != "decorated_definition":
            return False
        assert self.spec.html_routes is not None
        for dec in holder.named_children:
            if dec.type == "decorator" and dec.named_children:
                call = dec.named_children[0]
                target = call.child_by_field_name("function") if call.type == "call" else call
                if target is not None and self.spec.html_routes.fullmatch(dotted(target, self.grammar)):
                    return True
        return False

    def check_return(self, scope: Scope, node: Any, expr: Any) -> None:
        """A string built from request data returned by an HTML handler (reflected XSS)."""
        if expr.type in {"tuple", "expression_list"} and expr.named_children:
            expr = expr.named_children[0]  # `return body, 200`
        if expr.type not in RETURNED_TEXT:
            return  # a dict or list is sent as JSON; a call's result is its own sink or not
        value = scope.eval(expr)
        if value.tainted and not value.safe_for("xss") and (value.built or expr.type == "string"):
            self.hits.append(SinkHit(RETURN_SINK, node, value, "return"))

    def _annotated(self, param: Any) -> bool:
        """A Java parameter bound from the request (`@RequestParam String q`)."""
        assert self.spec.route_decorators is not None
        for part in param.named_children:
            if part.type != self.grammar.annotated_params:
                continue
            for ann in part.named_children:
                ann_name = ann.child_by_field_name("name")
                if ann_name is not None and self.spec.route_decorators.fullmatch(
                        (ann_name.text or b"").decode("utf-8", "replace")):
                    return True
        return False

    # -- calls ------------------------------------------------------------------------
    def call_names(self, node: Any) -> tuple[Any, str, str]:
        """(callee node, written name, resolved name) of a call or keyword sink."""
        fixed = fixed_name(node, self.grammar)
        if fixed:
            return None, fixed, fixed
        target = callee(node, self.grammar)
        raw, name = self.names(target) if target is not None else ("", "")
        return target, raw, name

    def call_arguments(self, node: Any) -> list[Any]:
        if node.type in self.grammar.strings:  # backticks: the command string is the argument
            return [node]
        return _arguments(arguments_node(node, self.grammar))

    def names(self, callee: Any) -> tuple[str, str]:
        raw = dotted(callee, self.grammar)
        if not raw and callee.type in self.grammar.members:  # `"<b>#{x}</b>".html_safe`
            method = _member_name(callee, self.grammar)
            return (f".{method}", f".{method}") if method else ("", "")
        return raw, resolve(raw, self.aliases)

    def call_value(self, scope: Scope, node: Any) -> Value:
        target, raw, name = self.call_names(node)
        clears = self.spec.sanitizer(name, raw) if raw else None
        kinds = self.spec.source_kinds(raw) | self.spec.source_kinds(name) if raw else frozenset()
        if kinds and clears is None:  # `params[:id].to_i` is a sanitizer's result, not a source
            return V.source(kinds)
        if self.folds:
            known = scope.known_get(node)
            if known is not None:
                return known
        args = [scope.eval(a) for a in self.call_arguments(node)]
        receiver = self._receiver(scope, target)
        if clears is not None:
            return V.join([*args, *([receiver] if receiver else [])]).clear(clears)
        helper = self._helper(raw)
        if helper is not None:
            return self._apply(helper, args)
        method = _member_name(target, self.grammar)
        if method in BUILDERS or name in BUILDERS:
            return V.build([*([receiver] if receiver else []), *args])
        if receiver is not None and not receiver.dynamic and (
                method in LOOKUPS or not any(a.dynamic for a in args)):
            return CONSTANT  # a constant's method, or a lookup in a constant table
        if receiver is not None:
            merged = V.join([receiver, *args])
            return Value(True, merged.sources, receiver.built, merged.cleared, receiver.text)
        merged = V.join(args)
        return Value(True, merged.sources, False, merged.cleared if merged.dynamic else frozenset())

    def _receiver(self, scope: Scope, callee: Any) -> Value | None:
        if callee is None or callee.type not in self.grammar.members:
            return None
        obj = callee.child_by_field_name(self.grammar.members[callee.type][0])
        if obj is None:
            return None
        head = dotted(obj, self.grammar).split(".")[0]
        if obj.type not in self.grammar.calls and head and head not in scope.env and (head in self.aliases or (
                self.grammar.capitalized_types and head[:1].isupper())
                or obj.type in self.grammar.constant_names):
            return None  # a module's or class's function, not a method of a value
        return scope.eval(obj)

    def _apply(self, fn: Any, args: list[Value]) -> Value:
        summary = self._summary(fn)
        if summary is None:
            return UNKNOWN
        through = summary.through
        if through is None:
            return summary.base
        flowing = [a for i, a in enumerate(args) if f"{PARAM}{i}" in through.sources]
        if not any(a.dynamic for a in flowing):
            return summary.base
        passed = V.join(flowing)
        cleared = through.cleared | passed.cleared
        sources = frozenset(s for s in through.sources if not s.startswith(PARAM)) | passed.sources
        return Value(True, sources, through.built, cleared, through.text)

    def _summary(self, fn: Any) -> Summary | None:
        key = fn.start_byte
        if key in self._summaries:
            return self._summaries[key]
        if self._depth >= MAX_SUMMARY_DEPTH:
            return None
        self._summaries[key] = None  # recursion guard
        self._depth += 1
        try:
            base = V.join(self._walk_function(fn, {}, CONSTANT, emit=False).returns)
            sinks: list[SinkHit] = []
            marked = V.join(self._walk_function(fn, {}, PARAM, emit=False, collect=sinks).returns)
        finally:
            self._depth -= 1
        flows = any(s.startswith(PARAM) for s in marked.sources)
        summary = Summary(base, marked if flows else None, tuple(sinks))
        self._summaries[key] = summary
        return summary

    # -- sinks ------------------------------------------------------------------------
    def check_call(self, scope: Scope, node: Any) -> None:
        target, raw, name = self.call_names(node)
        if not raw:
            return
        args = self.call_arguments(node)
        _track_mutation(scope, raw, args)
        if not scope.emit and scope.collect is None:
            return
        helper = self._helper(raw)
        if helper is not None and self.holds_candidate(helper):
            self._check_helper_call(scope, node, raw, helper, args)
        classes: set[str] = set()
        for sink in self.spec.sinks_for(name, raw, assign=False):
            if sink.sink_class in classes:
                continue
            text = (node.text or b"").decode("utf-8", "replace")
            if (sink.when and not sink.when.search(text)) or (sink.unless and sink.unless.search(text)):
                continue
            value = _sink_value(self.grammar, scope, sink, args, target)
            if value is not None:
                classes.add(sink.sink_class)
                self._report(scope, SinkHit(sink, node, value, name))

    def _report(self, scope: Scope, hit: SinkHit) -> None:
        """A hit of a walked function, or (a summary's walk) one its parameters reach."""
        if scope.emit:
            self.hits.append(hit)
        elif scope.collect is not None and any(s.startswith(PARAM) for s in hit.value.sources):
            scope.collect.append(hit)

    def _check_helper_call(self, scope: Scope, node: Any, raw: str, helper: Any,
                           args: list[Any]) -> None:
        """`run(request.args["c"])` where `def run(cmd)` passes `cmd` to a sink: the sink's
        hit at this call, with the arguments' values in place of the parameters."""
        summary = self._summary(helper)
        if summary is None or not summary.sinks:
            return
        positional = _split_arguments(args, self.grammar)[0]
        values = [scope.eval(a) for a in positional]
        params = _parameters(helper, self.grammar)
        if "." in raw and params and params[0][0] in {*self.grammar.self_names, "cls"}:
            values.insert(0, CONSTANT)  # `self.run(x)`: x is the second parameter
        for hit in summary.sinks:
            value = _substitute(hit.value, values)
            if value is not None:
                self._report(scope, SinkHit(hit.sink, node, value, hit.name, hit.via or hit.node))

    def check_assign(self, scope: Scope, node: Any, target: Any, value: Value) -> None:
        if not scope.emit and scope.collect is None:
            return
        raw = dotted(target, self.grammar)
        if not raw:
            return
        name = resolve(raw, self.aliases)
        text = ""
        for sink in self.spec.sinks_for(name, raw, assign=True):
            if sink.when or sink.unless:  # tested on the assignment's text
                text = text or (node.text or b"").decode("utf-8", "replace")
                if (sink.when and not sink.when.search(text)) or (sink.unless and sink.unless.search(text)):
                    continue
            self._report(scope, SinkHit(sink, node, value, name))

    def apply_guards(self, scope: Scope, condition: Any) -> None:
        """`if not path.startswith(base)`: the checked value is safe for the guard's classes."""
        if not self.spec.guards:
            return
        for call in _calls_in(condition, self.grammar):
            target, raw, name = self.call_names(call)
            for guard in self.spec.guards:
                if not (guard.matcher.fullmatch(name) or guard.matcher.fullmatch(raw)):
                    continue
                targets = [target.child_by_field_name(self.grammar.members[target.type][0])] \
                    if guard.receiver and target is not None and target.type in self.grammar.members \
                    else []
                positional = _split_arguments(self.call_arguments(call), self.grammar)[0]
                targets += [positional[i] for i in guard.args if i < len(positional)]
                for target in targets:
                    key = dotted(target, self.grammar) if target is not None else ""
                    if key in scope.env:
                        scope.env[key] = scope.env[key].clear(guard.clears)



def _sink_value(grammar: Any, scope: Scope, sink: Sink, args: list[Any], target: Any) -> Value | None:
    """The value of the arguments ``sink`` reads at this call (None: it reads none here)."""
    if not sink.args:
        return UNKNOWN
    positional, keywords = _split_arguments(args, grammar)
    chosen = []
    for spec in sink.args:
        if spec == "receiver":  # Ruby `value.html_safe`
            obj = target.child_by_field_name(grammar.members[target.type][0]) \
                if target is not None and target.type in grammar.members else None
            chosen.extend([obj] if obj is not None else [])
        elif spec == "*":
            chosen.extend([*positional, *keywords.values()])
        elif isinstance(spec, int) and -len(positional) <= spec < len(positional):
            chosen.append(positional[spec])
        elif isinstance(spec, str) and spec in keywords:
            chosen.append(keywords[spec])
    if not chosen:
        return None
    return V.join(scope.eval(n) for n in chosen)


def _track_mutation(scope: Scope, raw: str, args: list[Any]) -> None:
    """``items.append(x)``: what was added joins the receiver's value."""
    head, _, method = raw.rpartition(".")
    if method in MUTATORS and head and "." not in head and head in scope.env:
        added = V.join(scope.eval(a) for a in args)
        scope.env[head] = V.join([scope.env[head], added])


def _substitute(marked: Value, args: list[Value]) -> Value | None:
    """``marked`` (a sink's value in a summary) with the call's arguments for its
    ~paramN sources; None when no argument that reaches the sink is dynamic."""
    flowing = [a for i, a in enumerate(args) if f"{PARAM}{i}" in marked.sources]
    if not any(a.dynamic for a in flowing):
        return None
    passed = V.join(flowing)
    sources = frozenset(s for s in marked.sources if not s.startswith(PARAM)) | passed.sources
    return Value(True, sources, marked.built or passed.built, marked.cleared | passed.cleared,
                 marked.text, False)


def _calls_in(node: Any, g: Grammar, limit: int = 200) -> list[Any]:
    found, stack = [], [node]
    while stack and limit:
        current = stack.pop()
        limit -= 1
        if current.type in g.calls:
            found.append(current)
        stack.extend(current.named_children)
    return found


def _member_name(callee: Any, g: Grammar) -> str:
    if callee is None or callee.type not in g.members:
        return ""
    member = callee.child_by_field_name(g.members[callee.type][1])
    return (member.text or b"").decode("utf-8", "replace") if member is not None else ""


def _arguments(args_node: Any) -> list[Any]:
    if args_node is None:
        return []
    if args_node.type == "generator_expression":  # f(x for x in y): the one argument
        return [args_node]
    return [a for a in args_node.named_children if a.type != "comment"]


def _split_arguments(args: list[Any], g: Grammar) -> tuple[list[Any], dict[str, Any]]:
    positional, keywords = [], {}
    for arg in args:
        if arg.type in g.keyword_args:
            name = arg.child_by_field_name("name") or arg.child_by_field_name("key")
            val = arg.child_by_field_name("value")
            if name is not None and val is not None:
                keywords[(name.text or b"").decode().strip(":")] = val
        else:
            positional.append(arg)
    return positional, keywords


PARAM_KINDS = {"identifier": None, "typed_parameter": 0, "default_parameter": "name",
               "typed_default_parameter": "name", "required_parameter": "pattern",
               "optional_parameter": "pattern", "assignment_pattern": "left",
               "formal_parameter": "name", "spread_parameter": "name",
               "parameter_declaration": "name", "variadic_parameter_declaration": "name",
               "simple_parameter": "name", "variadic_parameter": "name",
               "property_promotion_parameter": "name", "keyword_parameter": "name",
               "splat_parameter": "name", "hash_splat_parameter": "name"}


def _parameters(fn: Any, g: Grammar) -> list[tuple[str, Any]]:
    """(name, parameter node) of each parameter of ``fn``."""
    params = fn.child_by_field_name("parameters")
    single = fn.child_by_field_name("parameter")
    if params is not None and params.type in g.names:  # Java `x -> …`
        params, single = None, params
    nodes = list(params.named_children) if params is not None else []
    if single is not None:
        nodes.append(single)
    names = []
    for p in nodes:
        how = PARAM_KINDS.get(p.type, "")
        if how is None:
            target = p
        elif how == 0:
            target = p.named_children[0] if p.named_children else None
        elif how:
            target = p.child_by_field_name(how) or p.child_by_field_name("name")
        else:
            target = None
        if target is not None and target.type in g.names:
            names.append(((target.text or b"").decode("utf-8", "replace"), p))
    return names


def _function_index(nodes: list[Any], g: Grammar) -> dict[str, Any]:
    """Named functions of the file (definitions, declarations, `const f = () => …`)."""
    out: dict[str, Any] = {}
    for node in nodes:
        name = node.child_by_field_name("name")
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            node = value if value is not None else node
        if name is not None and (name.type in g.names or name.type in g.constant_names
                                 or name.type in {"property_identifier", "field_identifier"}):
            out.setdefault((name.text or b"").decode("utf-8", "replace"), node)
    return out


IMPORTS = {"python": python_imports, "javascript": javascript_imports, "go": go_imports}
QUERIES = {  # named functions (@f); every call and assignment (@c), kept if it names a sink;
    # imports (@i, names.IMPORT_QUERIES): one query pass per file
    "python": "(function_definition) @f (call) @c (assignment left: [(attribute) (subscript)]) @c "
              + IMPORT_QUERIES["python"],
    "javascript": "[(function_declaration) (method_definition)] @f"
                  " (variable_declarator value: [(arrow_function) (function_expression)]) @f"
                  " (call_expression) @c (new_expression) @c"
                  " (assignment_expression left: [(member_expression) (identifier)]) @c "
                  + IMPORT_QUERIES["javascript"],
    "java": "[(method_declaration) (constructor_declaration)] @f"
            " [(method_invocation) (object_creation_expression)] @c",
    "go": "[(function_declaration) (method_declaration)] @f (call_expression) @c",
    "php": "[(function_definition) (method_declaration)] @f"
           " [(function_call_expression) (member_call_expression) (scoped_call_expression)"
           " (nullsafe_member_call_expression) (object_creation_expression) (echo_statement)"
           " (print_intrinsic) (include_expression) (include_once_expression) (require_expression)"
           " (require_once_expression) (shell_command_expression)] @c",
    "ruby": "[(method) (singleton_method)] @f [(call) (subshell)] @c",
}
FAMILIES = {"python": "python", "javascript": "javascript", "typescript": "javascript",
            "tsx": "javascript", "java": "java", "go": "go", "php": "php", "ruby": "ruby"}


def _family(language: str) -> str:
    return FAMILIES[language]


@cache
def _query(language: str) -> Any:
    import tree_sitter


    return tree_sitter.Query(get_language(language), QUERIES[_family(language)])


def query_source(language: str) -> str:
    """The patterns the analysis needs from a file's tree (see ``analyze(captures=)``)."""
    return QUERIES[_family(language)]


def compile_query(language: str) -> None:
    """Load the language's spec and compile its query now (both are cached)."""
    spec_for(language)
    _query(language)


def _captures(language: str, root: Any) -> dict[str, list[Any]]:
    import tree_sitter

    return _ordered(tree_sitter.QueryCursor(_query(language)).captures(root))


def _ordered(captures: dict[str, list[Any]]) -> dict[str, list[Any]]:
    # py-tree-sitter returns each capture's nodes in no stable order; what the analysis
    # takes from them (the first definition of a name) must not depend on it. Candidate
    # calls (@c, most of the nodes) are not sorted: only their positions are kept, sorted.
    return {name: nodes if name == "c" else in_document_order(nodes)
            for name, nodes in captures.items()}
