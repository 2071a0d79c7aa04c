"""SAST rules: parsed from YAML packs (built-in, `.security.yaml`, skills) and validated.

A rule's ``pattern`` is one of:
- ``type: tree-sitter`` with ``query`` (one or more S-expression patterns; predicates
  ``#eq?``, ``#match?``, ``#any-of?`` and their ``not-`` forms), an optional ``report``
  capture (default: the widest capture), ``not_match`` (a regex; a hit whose reported
  text matches it is dropped) and ``dynamic`` (capture names that must hold a value
  built at run time, see ``sast_context``): the context that tells safe code from unsafe;
- ``type: regex`` with ``match`` (RE2 syntax; other syntax runs under a time limit);
- ``type: taint`` with ``sinks`` (sink classes of the language's taint spec, see
  ``aiagent.engines.security.dataflow``), ``requires`` (what must reach the sink: ``tainted`` data
  from a source, a ``built`` string (built with a dynamic part, or tainted), any
  ``dynamic`` value, a ``literal`` (hard-coded keys), or just the ``call``), optional
  ``sources`` (source kinds that count) and ``text`` (a regex the constant text of a
  built value must match, e.g. SQL keywords);
- ``type: llm-hint`` with ``description``: kept for the LLM phase, never run statically.
Both runnable kinds accept ``include_paths`` / ``exclude_paths`` globs; tree-sitter rules
also ``opt_in: SEVERITY``, the severity when the hit only runs behind an explicit user
choice such as ``--insecure`` (see ``sast_optin``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any, TypeVar

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Category, Confidence, Severity
from aiagent.engines.security.regexsafe import RegexCompileError, SafePattern

LANGUAGE_ALIASES = {
    "js": "javascript", "ts": "typescript", "objc": "objective-c", "xml": "plist",
    "c#": "csharp", "golang": "go", "kt": "kotlin",
}
_E = TypeVar("_E", bound=StrEnum)

EXPANSIONS = {"typescript": ("typescript", "tsx"), "plist": ("plist", "entitlements", "xml")}


@dataclass(frozen=True, slots=True)
class SastRule:
    id: str
    title: str
    severity: Severity
    category: Category
    languages: tuple[str, ...]
    kind: str
    source: str
    cwe: str = ""
    owasp: str = ""
    confidence: Confidence = Confidence.MEDIUM
    description: str = ""
    remediation: str = ""
    references: tuple[str, ...] = ()
    query: str = ""
    report: str = ""
    regex: SafePattern | None = None
    not_match: SafePattern | None = None
    dynamic: tuple[str, ...] = ()
    include_paths: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    skill_source: str = ""
    sinks: tuple[str, ...] = ()
    requires: str = ""
    sources: tuple[str, ...] = ()
    text: SafePattern | None = None
    opt_in: Severity | None = None  # severity when only reached behind `--insecure` & co

    def applies_to_path(self, rel: str) -> bool:
        if self.include_paths and not any(_glob(rel, p) for p in self.include_paths):
            return False
        return not any(_glob(rel, p) for p in self.exclude_paths)

    def applies_to_language(self, language: str) -> bool:
        return not self.languages or "any" in self.languages or language in self.languages


def _glob(rel: str, pattern: str) -> bool:
    if not any(ch in pattern for ch in "*?["):
        return rel == pattern or rel.startswith(pattern.rstrip("/") + "/")
    return fnmatchcase(rel, pattern) or fnmatchcase("/" + rel, pattern)


def parse_rule(raw: dict[str, Any], source: str, skill_source: str = "",
               lazy: bool = False) -> SastRule:
    """``lazy``: the rule's regexes compile on first use (built-in rules only: a bad
    pattern of a project's own rule must be an error now, naming the rule)."""
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not rule_id:
        raise SecurityConfigError(source, "rules[].id", "required string")
    try:
        return _build(raw, rule_id, source, skill_source, lazy)
    except SecurityConfigError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise SecurityConfigError(source, rule_id, f"bad rule: {exc}") from None


def _build(raw: dict[str, Any], rule_id: str, source: str, skill_source: str,
           lazy: bool) -> SastRule:
    pattern = raw.get("pattern")
    if not isinstance(pattern, dict):
        raise SecurityConfigError(source, f"{rule_id}.pattern", "must be a mapping")
    kind = str(pattern.get("type", "regex"))
    if kind not in {"tree-sitter", "regex", "llm-hint", "taint"}:
        raise SecurityConfigError(source, f"{rule_id}.pattern.type", f"unknown type {kind!r}")
    return SastRule(
        id=rule_id,
        title=str(raw.get("title") or rule_id),
        severity=_enum(Severity, raw.get("severity", "medium"), source, f"{rule_id}.severity"),
        category=_enum(Category, raw.get("category", "injection"), source, f"{rule_id}.category"),
        languages=_languages(raw.get("languages") or []),
        kind=kind,
        source=source,
        cwe=str(raw.get("cwe", "")),
        owasp=str(raw.get("owasp", "")),
        confidence=_enum(Confidence, raw.get("confidence", "medium"), source, f"{rule_id}.confidence"),
        description=str(raw.get("description", "")).strip(),
        remediation=str(raw.get("remediation", "")).strip(),
        references=tuple(str(r) for r in raw.get("references", [])),
        query=str(pattern.get("query", "")) if kind == "tree-sitter" else "",
        report=str(pattern.get("report", "")).lstrip("@"),
        regex=_regex(pattern.get("match"), source, rule_id, lazy) if kind == "regex" else None,
        not_match=_regex(pattern.get("not_match"), source, rule_id, lazy),
        dynamic=_captures(pattern.get("dynamic"), source, rule_id),
        include_paths=tuple(str(p) for p in pattern.get("include_paths", [])),
        exclude_paths=tuple(str(p) for p in pattern.get("exclude_paths", [])),
        skill_source=skill_source,
        opt_in=_enum(Severity, pattern["opt_in"], source, f"{rule_id}.pattern.opt_in")
        if pattern.get("opt_in") is not None else None,
        **(_taint_fields(pattern, source, rule_id, lazy) if kind == "taint" else {}),
    )


REQUIREMENTS = ("tainted", "built", "dynamic", "literal", "call")


def _taint_fields(pattern: dict[str, Any], source: str, rule_id: str,
                  lazy: bool) -> dict[str, Any]:
    requires = str(pattern.get("requires", "tainted"))
    if requires not in REQUIREMENTS:
        raise SecurityConfigError(source, f"{rule_id}.pattern.requires",
                                  f"unknown value {requires!r} (expected one of: {', '.join(REQUIREMENTS)})")
    sinks = pattern.get("sinks")
    if not isinstance(sinks, list) or not sinks:
        raise SecurityConfigError(source, f"{rule_id}.pattern.sinks", "must list sink classes")
    return {"sinks": tuple(str(s) for s in sinks), "requires": requires,
            "sources": tuple(str(s) for s in pattern.get("sources") or []),
            "text": _regex(pattern.get("text"), source, rule_id, lazy)}


def _enum(kind: type[_E], value: Any, source: str, where: str) -> _E:
    try:
        return kind(str(value).strip().lower())
    except ValueError:
        names = ", ".join(str(v) for v in kind.__members__.values())
        raise SecurityConfigError(source, where, f"unknown value {value!r} (expected one of: {names})") from None


def _regex(value: Any, source: str, rule_id: str, lazy: bool = False) -> SafePattern | None:
    if value is None:
        return None
    try:
        return SafePattern(str(value), lazy=lazy)
    except RegexCompileError as exc:
        raise SecurityConfigError(source, f"{rule_id}.pattern", str(exc)) from None


def _captures(value: Any, source: str, rule_id: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise SecurityConfigError(source, f"{rule_id}.pattern.dynamic", "must be capture names")
    return tuple(v.lstrip("@") for v in items)


def _languages(values: list[Any]) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        name = LANGUAGE_ALIASES.get(str(value).lower(), str(value).lower())
        out.extend(EXPANSIONS.get(name, (name,)))
    return tuple(dict.fromkeys(out))
