"""SAST scanner: tree-sitter query rules and regex rules from YAML packs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.discovery import SourceFile
from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Finding, Location
from aiagent.engines.security.pathcontext import SCRIPT, default_categories
from aiagent.engines.security.redaction import evidence as redacted_evidence
from aiagent.engines.security.regexsafe import RegexCompileError, RegexTimeout, timeout_note
from aiagent.engines.security.rulepack import list_packs, load_pack, packs_version
from aiagent.engines.security.scanners.sast_context import context_text, has_dynamic
from aiagent.engines.security.scanners.sast_optin import apply_opt_in
from aiagent.engines.security.scanners.sast_query import (
    LanguageQuery,
    enclosing_function,
    report_node,
)
from aiagent.engines.security.scanners.sast_rules import SastRule, parse_rule
from aiagent.engines.security.scanners.sast_taint import taint_matches, taint_query
from aiagent.engines.security.skillrules import check_runnable
from aiagent.engines.security.textpos import line_at
from aiagent.infra.syntax.treesitter import GRAMMARS, available, parse

PACK_FOLDER = "sast"


def builtin_rules() -> list[SastRule]:
    return [parse_rule(raw, raw["_source"], lazy=True) for name in list_packs(PACK_FOLDER)
            for raw in load_pack(name)]


def config_rules(config: SecurityConfig) -> list[SastRule]:
    """`.security.yaml` custom rules, then the rules Security Rule Skills contribute.
    A custom rule that cannot run (a bad query, no pattern) is a SecurityConfigError naming
    the file and the rule, not a warning per file."""

    rules = [parse_rule(raw, config.source or ".security.yaml") for raw in config.rules]
    for rule in rules:
        check_runnable(rule)
    rules += [parse_rule(r.raw, r.source, r.skill) for r in config.skill_rules]
    return rules


class SastScanner:
    name = "sast"

    def __init__(self, config: SecurityConfig | None = None,
                 extra_rules: Iterable[SastRule] = ()) -> None:
        config = config or SecurityConfig()
        self.rules = [*builtin_rules(), *config_rules(config), *extra_rules]
        self.version = packs_version([*list_packs(PACK_FOLDER), *list_packs("taint")]) + "-taint1"
        self._tree_rules: dict[str, list[SastRule]] = defaultdict(list)
        self._taint_rules: dict[str, list[SastRule]] = defaultdict(list)
        for rule in sorted(self.rules, key=lambda r: -r.severity.rank):
            if rule.kind in {"tree-sitter", "taint"}:
                table = self._tree_rules if rule.kind == "tree-sitter" else self._taint_rules
                for lang in rule.languages:
                    table[lang].append(rule)
        self._regex_rules = [r for r in self.rules if r.kind == "regex"]
        self._queries: dict[str, LanguageQuery] = {}
        self.notes: list[str] = []  # rules skipped on the last file (see base.take_notes)

    def applies_to(self, file: SourceFile) -> bool:
        return bool(file.language) and file.language != "lockfile"

    def validate(self) -> None:
        """Compile every tree-sitter rule now (raises SecurityConfigError on a bad one)."""
        for lang in list(self._tree_rules):
            if available(lang):
                self._query(lang)

    def warm(self, languages: set[str]) -> None:
        """Compile now what scanning ``languages`` needs (before worker processes fork)."""
        for rule in self.rules:
            if any(rule.applies_to_language(lang) for lang in languages):
                for pattern in (rule.regex, rule.not_match, rule.text):
                    if pattern is not None:
                        with suppress(RegexCompileError):  # reported where it is used
                            pattern.prepare()
        for lang in sorted(languages):
            if lang not in GRAMMARS or not available(lang):
                continue
            if lang in self._tree_rules or lang in self._taint_rules:
                # a bad rule query is reported per file by scan_file, as without warming
                with suppress(SecurityConfigError):
                    self._query(lang)

    def scan_file(self, file: SourceFile, data: bytes) -> list[Finding]:
        findings = self._scan_regex(file, data)
        if (file.language in self._tree_rules or file.language in self._taint_rules) \
                and file.language in GRAMMARS:
            findings.extend(self._scan_tree(file, data))
        return findings

    def _query(self, language: str) -> LanguageQuery:
        """The language's rules and its taint patterns in one query (one pass per file)."""
        q = self._queries.get(language)
        if q is None:
            extra = taint_query(language) if self._taint_rules.get(language) else ""
            q = LanguageQuery(language, self._tree_rules.get(language, []), extra)
            self._queries[language] = q
        return q

    def _scan_tree(self, file: SourceFile, data: bytes) -> list[Finding]:
        if not available(file.language):
            return []
        tree = parse(file.language, data)
        matches, taint_nodes = self._query(file.language).run(tree.root_node)
        seen: set[tuple[str, int, int]] = set()
        out = self._scan_taint(file, tree.root_node, data, taint_nodes)
        if file.language not in self._tree_rules:
            return out
        for rule, captures in matches:
            if not rule.applies_to_path(file.rel):
                continue
            if rule.dynamic and not has_dynamic(captures, rule.dynamic):
                continue
            node = report_node(rule, captures)
            key = (rule.id, node.start_byte, node.end_byte)
            text = node.text or b""
            if key in seen or (rule.not_match is not None
                               and rule.not_match.search(context_text(node))):
                continue
            seen.add(key)
            first_line = text.split(b"\n", 1)[0]
            finding = _finding(rule, file, node.start_point[0] + 1, node.end_point[0] + 1,
                               enclosing_function(node), first_line)
            if rule.opt_in is not None:
                finding = apply_opt_in(finding, rule.opt_in, node, tree.root_node)
            out.append(finding)
        return out

    def _scan_taint(self, file: SourceFile, root: Any, data: bytes,
                    nodes: dict[str, list[Any]]) -> list[Finding]:
        rules = [r for r in self._taint_rules.get(file.language, []) if r.applies_to_path(file.rel)]
        out = []
        for rule, node, kinds, via in taint_matches(rules, file.language, file.rel, root, data, nodes):
            if rule.not_match is not None and rule.not_match.search(node.text or b""):
                continue
            first_line = (node.text or b"").split(b"\n", 1)[0]
            if via is not None:  # the sink is in a local helper this call reaches
                sink_line = via.start_point[0] + 1
                first_line += b"  -> line %d: %s" % (sink_line, (via.text or b"").split(b"\n", 1)[0])
            found = _finding(rule, file, node.start_point[0] + 1, node.end_point[0] + 1,
                             enclosing_function(node), first_line)
            if via is not None:
                found.metadata["sink_line"] = str(via.start_point[0] + 1)
            if kinds and _in_script(file.rel):  # path context weighs outside input there
                found.metadata["input"] = ",".join(sorted(kinds))
            out.append(found)
        return out

    def _scan_regex(self, file: SourceFile, data: bytes) -> list[Finding]:
        out = []
        for rule in self._regex_rules:
            if not (rule.applies_to_language(file.language) and rule.applies_to_path(file.rel)):
                continue
            assert rule.regex is not None
            try:
                for m in rule.regex.finditer(data):
                    line_no, line = line_at(data, m.start)
                    if rule.not_match is not None and rule.not_match.search(line):
                        continue
                    end_line = line_no + data.count(b"\n", m.start, max(m.end - 1, m.start))
                    out.append(_finding(rule, file, line_no, end_line, "", line))
            except RegexTimeout:
                self.notes.append(timeout_note(self.name, rule.id, rule.regex))
        return out


def _in_script(rel: str) -> bool:

    return default_categories().category(rel) == SCRIPT


def _finding(rule: SastRule, file: SourceFile, start: int, end: int, function: str,
             evidence: bytes) -> Finding:
    return Finding(
        id=rule.id,
        scanner="sast",
        severity=rule.severity,
        category=rule.category,
        title=rule.title,
        description=rule.description,
        location=Location(file.rel, start, end, function),
        cwe=rule.cwe,
        owasp=rule.owasp,
        evidence=redacted_evidence(evidence),
        remediation=rule.remediation,
        confidence=rule.confidence,
        references=rule.references,
        skill_source=rule.skill_source,
    )
