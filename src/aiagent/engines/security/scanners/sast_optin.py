"""Safety checks turned off only behind an explicit user choice (`--insecure`).

A rule with ``opt_in: SEVERITY`` keeps its finding but lowers it to that severity when the
flagged code runs only under a condition naming such a choice (``data/opt_in.toml``): an
enclosing ``if``/ternary/``unless`` whose condition matches, or an enclosing function
whose every call in the file sits under one. Only hits of those rules pay for the walk.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from typing import Any

from aiagent.engines.security.finding import Finding, Severity
from aiagent.engines.security.scanners.sast_query import FUNCTION_TYPES

# Branching nodes across the grammars we ship (Python, JS/TS, Go, Java, Kotlin, Ruby, PHP, C#).
IF_KINDS = frozenset({
    "if_statement", "if_expression", "elif_clause", "if", "elsif", "unless", "if_modifier",
    "unless_modifier", "conditional", "conditional_expression", "ternary_expression",
})
CALL_KINDS = frozenset({"call", "call_expression", "method_invocation", "invocation_expression",
                        "function_call_expression", "member_call_expression", "scoped_call_expression"})
BODY_HINTS = ("block", "body", "statement", "else", "consequence", "alternative")


@lru_cache(maxsize=1)
def opt_in_names() -> re.Pattern[str]:
    text = (resources.files("aiagent.engines.security.data") / "opt_in.toml").read_text("utf-8")
    return re.compile(tomllib.loads(text)["names"])


def apply_opt_in(finding: Finding, severity: Severity, node: Any, root: Any) -> Finding:
    """``finding`` at ``severity`` when ``node`` runs only behind an opt-in condition."""
    condition = guard(node, root)
    if condition is None or severity.rank >= finding.severity.rank:
        return finding
    meta = {**finding.metadata, "original_severity": finding.severity.value,
            "opt_in": condition[:120]}
    note = f" Only reached when `{condition[:80]}` holds: an explicit opt-in, so it is reported at {severity.value}."
    return replace(finding, severity=severity, metadata=meta,
                   description=finding.description + note)


def guard(node: Any, root: Any) -> str | None:
    """The opt-in condition ``node`` runs under, if any (one level of calls followed)."""
    own = _guarding_condition(node)
    if own is not None:
        return own
    for function in _enclosing_functions(node):
        name = function.child_by_field_name("name")
        if name is None or not name.text:
            continue
        calls = list(_calls_of(root, name.text.decode("utf-8", "replace")))
        conditions = [_guarding_condition(c) for c in calls]
        if calls and all(c is not None for c in conditions):
            return conditions[0]
    return None


def _guarding_condition(node: Any) -> str | None:
    names = opt_in_names()
    child, current = node, node.parent
    while current is not None:
        if current.type in IF_KINDS:
            for text in _conditions(current, child):
                if names.search(text):
                    return " ".join(text.split())
        if current.type in FUNCTION_TYPES:
            return None
        child, current = current, current.parent
    return None


def _conditions(branching: Any, inside: Any) -> Iterator[str]:
    condition = branching.child_by_field_name("condition")
    parts = [condition] if condition is not None else [
        c for c in branching.named_children
        if c.id != inside.id and not any(h in c.type for h in BODY_HINTS)]
    for part in parts:
        yield (part.text or b"").decode("utf-8", "replace")


def _enclosing_functions(node: Any) -> Iterator[Any]:
    current = node if node.type in FUNCTION_TYPES else node.parent
    while current is not None:
        if current.type in FUNCTION_TYPES:
            yield current
        current = current.parent


def _calls_of(root: Any, name: str) -> Iterator[Any]:
    callee = re.compile(rb"(?:^|[.:>\s])" + re.escape(name.encode()) + rb"\s*$")
    stack = [root]
    while stack:
        current = stack.pop()
        if current.type in CALL_KINDS:
            text = current.text or b""
            if callee.search(text.split(b"(", 1)[0]):
                yield current
        stack.extend(current.children)
