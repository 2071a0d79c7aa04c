"""Rule files contributed by Security Rule Skills, checked and merged into the policy.

A skill's ``security_rules.sast_rules_file`` is a pack in the built-in SAST format (a
mapping with a ``rules`` list); its ``overrides_file`` holds an ``overrides`` list in the
`.security.yaml` format. Both are checked here, before any file is scanned, so a mistake
is one error line naming the skill, the file and the field. The rules then travel in
:attr:`SecurityConfig.skill_rules` (to worker processes too) and the SAST scanner runs
them with the finding's ``skill_source`` set to the skill.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from aiagent.engines.security.config import Override, SecurityConfig, SkillRule, parse_config
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.rulepack import list_packs, load_pack
from aiagent.engines.security.scanners.sast_query import compile_rule
from aiagent.engines.security.scanners.sast_rules import SastRule, parse_rule
from aiagent.engines.security.yamlio import YAMLError, load_yaml
from aiagent.infra.syntax.treesitter import GRAMMARS, available

RULE_KEYS = frozenset({
    "id", "title", "severity", "category", "cwe", "owasp", "confidence", "languages",
    "description", "remediation", "references", "pattern",
})
PATTERN_KEYS = frozenset({
    "type", "query", "report", "match", "not_match", "dynamic", "include_paths",
    "exclude_paths", "description",
})
PACK_KEYS = frozenset({"version", "description", "rules"})
OVERRIDE_PACK_KEYS = frozenset({"version", "description", "overrides"})
MAX_PACK_BYTES = 2_000_000


class RuleFileRef(Protocol):
    """What the skill runtime hands over (``aiagent.agent.skills.runtime.RuleFile``)."""

    @property
    def skill(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def path(self) -> Path: ...


def apply_skill_rules(config: SecurityConfig, files: Iterable[RuleFileRef]) -> SecurityConfig:
    """``config`` plus the skills' rules and overrides (the project's own overrides win)."""
    taken = _builtin_ids() | {str(r.get("id")) for r in config.rules}
    rules: list[SkillRule] = list(config.skill_rules)
    overrides: dict[str, Override] = {}
    for ref in files:
        source = f"skill {ref.skill}: {_shown(ref.path)}"
        if ref.kind == "sast":
            rules += _sast_pack(ref.skill, source, ref.path, taken)
        elif ref.kind == "overrides":
            overrides.update(_overrides_pack(source, ref.path))
        else:
            raise SecurityConfigError(source, "", f"unknown rule file kind {ref.kind!r}")
    return replace(config, skill_rules=tuple(rules), overrides={**overrides, **config.overrides})


def _builtin_ids() -> set[str]:
    return {str(raw.get("id")) for name in list_packs("sast") for raw in load_pack(name)}


def _shown(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return rel if not rel.startswith("..") else str(path)


def _read(source: str, path: Path) -> Any:
    try:
        with path.open("rb") as fh:
            text = fh.read(MAX_PACK_BYTES + 1)
    except OSError as exc:
        raise SecurityConfigError(source, "", f"cannot read: {exc.strerror or exc}") from None
    if len(text) > MAX_PACK_BYTES:
        raise SecurityConfigError(source, "", f"larger than {MAX_PACK_BYTES} bytes")
    try:
        return load_yaml(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise SecurityConfigError(source, "", "not valid UTF-8") from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise SecurityConfigError(source, f"line {mark.line + 1}" if mark else "",
                                  f"invalid YAML: {problem}") from None


def _mapping(data: Any, source: str, keys: frozenset[str], required: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SecurityConfigError(source, "(top level)", f"must be a mapping with a {required!r} list")
    unknown = sorted(str(k) for k in data if k not in keys)
    if unknown:
        raise SecurityConfigError(source, unknown[0], f"unknown key (expected: {', '.join(sorted(keys))})")
    if not isinstance(data.get(required), list):
        raise SecurityConfigError(source, required, "must be a list")
    return data


def _sast_pack(skill: str, source: str, path: Path, taken: set[str]) -> list[SkillRule]:
    data = _mapping(_read(source, path), source, PACK_KEYS, "rules")
    out = []
    for i, raw in enumerate(data["rules"]):
        if not isinstance(raw, dict):
            raise SecurityConfigError(source, f"rules[{i}]", "must be a mapping")
        _check_keys(raw, source, i)
        rule = parse_rule(raw, source, skill)
        if rule.id in taken:
            raise SecurityConfigError(source, f"{rule.id}.id", "this rule id is already in use "
                                      "(built-in, .security.yaml or another skill)")
        taken.add(rule.id)
        check_runnable(rule)
        out.append(SkillRule(skill, source, dict(raw)))
    return out


def _check_keys(raw: dict[str, Any], source: str, index: int) -> None:
    where = str(raw.get("id") or f"rules[{index}]")
    unknown = sorted(str(k) for k in raw if k not in RULE_KEYS)
    if unknown:
        raise SecurityConfigError(source, f"{where}.{unknown[0]}", "unknown field")
    pattern = raw.get("pattern")
    if isinstance(pattern, dict):
        unknown = sorted(str(k) for k in pattern if k not in PATTERN_KEYS)
        if unknown:
            raise SecurityConfigError(source, f"{where}.pattern.{unknown[0]}", "unknown field")


def check_runnable(rule: SastRule) -> None:
    """Compile tree-sitter queries now, so a bad one stops the audit before it starts
    (for skill rules and `.security.yaml` custom rules alike)."""

    if rule.kind == "regex" and rule.regex is None:
        raise SecurityConfigError(rule.source, f"{rule.id}.pattern.match", "required for type regex")
    if rule.kind != "tree-sitter":
        return
    if not rule.query.strip():
        raise SecurityConfigError(rule.source, f"{rule.id}.pattern.query", "required for type tree-sitter")
    if not rule.languages:
        raise SecurityConfigError(rule.source, f"{rule.id}.languages",
                                  f"required for tree-sitter rules (one of: {', '.join(GRAMMARS)})")
    for language in rule.languages:
        if language not in GRAMMARS:
            raise SecurityConfigError(rule.source, f"{rule.id}.languages",
                                      f"no tree-sitter grammar for {language!r} (one of: {', '.join(GRAMMARS)})")
        if available(language):
            compile_rule(rule, language)


def _overrides_pack(source: str, path: Path) -> dict[str, Override]:
    data = _mapping(_read(source, path), source, OVERRIDE_PACK_KEYS, "overrides")
    return parse_config({"overrides": data["overrides"]}, source).overrides
