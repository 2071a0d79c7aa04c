"""Secret scanner: provider token formats (YAML pack) + Shannon entropy + allowlists."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.discovery import SourceFile
from aiagent.engines.security.entropy import charset, shannon
from aiagent.engines.security.finding import Confidence, Finding, Location
from aiagent.engines.security.redaction import evidence as redacted_evidence
from aiagent.engines.security.redaction import mask
from aiagent.engines.security.regexsafe import PatternSet, RegexTimeout, SafePattern, timeout_note
from aiagent.engines.security.rulepack import packs_version
from aiagent.engines.security.scanners.secrets_rules import (
    DOLLAR_NAME_LANGUAGES,
    DOLLAR_NAME_PATTERN,
    PACK,
    PLACEHOLDER_PATTERN,
    TEMPLATE_MIN_LITERAL,
    TEMPLATE_PART_PATTERN,
    TEST_PATH_PATTERN,
    SecretRule,
    load_secret_rules,
)
from aiagent.engines.security.textpos import line_at

SUPPRESS_MARKERS = (b"nosec", b"aiagent:ignore", b"pragma: allowlist secret", b"gitleaks:allow")
_TEMPLATE_PART = re.compile(TEMPLATE_PART_PATTERN)
_DOLLAR_TEMPLATE_PART = re.compile(TEMPLATE_PART_PATTERN + b"|" + DOLLAR_NAME_PATTERN)
_NOT_ALNUM = re.compile(rb"[^a-z0-9]")
# `[password]="` / `:password="` / `v-bind:password="`: an attribute bound to an expression
_BINDING_NAME = re.compile(rb"(?:\[[\w.-]+\]|(?:^|\s|v-bind):[\w.-]+)\s*=\s*[\"']?$")
_EXPRESSION = re.compile(rb"[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*|\(\)|!)*")


class SecretsScanner:
    name = "secrets"

    def __init__(self, config: SecurityConfig | None = None) -> None:
        config = config or SecurityConfig()
        self.rules = load_secret_rules()
        self.version = packs_version([PACK])
        self._placeholder = SafePattern(PLACEHOLDER_PATTERN)
        self._test_path = SafePattern(TEST_PATH_PATTERN)
        self._allow = [SafePattern(p) for p in config.allow_secrets]
        # every rule's keyword pre-check in one pass over the file (see PatternSet)
        words = sorted({k for rule in self.rules for k in rule.keywords})
        index = {word: i for i, word in enumerate(words)}
        self._rule_words = [frozenset(index[k] for k in rule.keywords) for rule in self.rules]
        self._words = PatternSet(words, lambda i, data: words[i] in data, literals=True)
        self.notes: list[str] = []  # rules skipped on the last file (see base.take_notes)

    def applies_to(self, file: SourceFile) -> bool:
        return True

    def scan_file(self, file: SourceFile, data: bytes) -> list[Finding]:
        lowered = data.lower()
        test_path = self._test_path.search(file.rel.encode())
        state = _FileState(data)
        findings: list[Finding] = []
        present = self._words.present(lowered)
        for rule, words in zip(self.rules, self._rule_words, strict=True):
            if file.language in rule.skip_kinds or (rule.generic and test_path):
                continue
            if rule.skip_paths is not None and rule.skip_paths.search(file.rel):
                continue
            if rule.keywords and words.isdisjoint(present):
                continue
            findings.extend(self._scan_rule(rule, file, state, test_path))
        return findings

    def scan_text(self, rel: str, language: str, data: bytes) -> list[Finding]:
        return self.scan_file(SourceFile(path=None, rel=rel, language=language, size=len(data)),  # type: ignore[arg-type]
                              data)

    def _scan_rule(self, rule: SecretRule, file: SourceFile, state: _FileState,
                   test_path: bool) -> list[Finding]:
        out = []
        try:
            for m in rule.pattern.finditer(state.data):
                start, end = m.span(rule.secret_group)
                secret = m.group(rule.secret_group) or b""
                if start < 0 or state.overlaps(start, end) or not self._plausible(rule, secret):
                    continue
                begin = m.span(0)[0]
                if rule.generic and not_literal(state.data[begin:start], secret, file.language,
                                                state.data[max(0, begin - 1):begin]):
                    continue
                line_no, line = state.line_at(start)
                if any(marker in line.lower() for marker in SUPPRESS_MARKERS):
                    continue
                state.claim(start, end)
                out.append(_finding(rule, file, line_no, line, secret, test_path))
        except RegexTimeout:
            self.notes.append(timeout_note(self.name, rule.id, rule.pattern))
        return out

    def secret_spans(self, data: bytes) -> list[tuple[int, int]]:
        """Byte spans of every plausible secret in ``data`` (sorted, not overlapping), for
        redaction: all rules, wherever the text came from."""
        present = self._words.present(data.lower())
        spans: list[tuple[int, int]] = []
        for rule, words in zip(self.rules, self._rule_words, strict=True):
            if rule.keywords and words.isdisjoint(present):
                continue
            try:
                for m in rule.pattern.finditer(data):
                    start, end = m.span(rule.secret_group)
                    if start >= 0 and self._plausible(rule, m.group(rule.secret_group) or b""):
                        spans.append((start, end))
            except RegexTimeout:
                continue
        return _merge(spans)

    def _plausible(self, rule: SecretRule, secret: bytes) -> bool:
        if not secret or self._placeholder.search(secret):
            return False
        if any(p.search(secret) for p in self._allow):
            return False
        if rule.entropy and shannon(secret) < rule.entropy:
            return False
        if rule.charset_entropy:
            limits = dict(rule.charset_entropy)
            kind = charset(secret)
            if kind not in limits or shannon(secret) < limits[kind]:
                return False
        return True


def not_literal(name: bytes, value: bytes, language: str, before: bytes = b"") -> bool:
    """A generic (``name = "value"``) hit that is no hard-coded secret: the value is a
    string template (`"#{a}:#{b}"`; `"$user:$password"` in Kotlin or PHP), repeats its
    own name (`secret_key_base = "secret_key_base"`), or is a template binding's expression
    (Angular `[password]="form.password"`, Vue `:password="pwd"`)."""
    if _BINDING_NAME.search(before + name) and _EXPRESSION.fullmatch(value):
        return True
    parts_re = _DOLLAR_TEMPLATE_PART if language in DOLLAR_NAME_LANGUAGES else _TEMPLATE_PART
    literal, parts = parts_re.subn(b"", value)
    if parts and sum(ch.isalnum() for ch in literal.decode("latin-1")) < TEMPLATE_MIN_LITERAL:
        return True
    own = _NOT_ALNUM.sub(b"", value.lower())
    return bool(own) and own in _NOT_ALNUM.sub(b"", name.lower())


@dataclass(slots=True)
class _FileState:
    data: bytes
    _claimed: list[tuple[int, int]] = field(default_factory=list)

    def line_at(self, offset: int) -> tuple[int, bytes]:
        return line_at(self.data, offset)

    def overlaps(self, start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in self._claimed)

    def claim(self, start: int, end: int) -> None:
        self._claimed.append((start, end))


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _finding(rule: SecretRule, file: SourceFile, line_no: int, line: bytes, secret: bytes,
             test_path: bool) -> Finding:

    # Every secret on the line is masked, not only this one; this one is masked even
    # when the redactor's rules would not see it alone (its rule needed the context).
    own = secret.decode("utf-8", "replace")
    evidence = redacted_evidence(line.decode("utf-8", "replace").replace(own, mask(own)))
    confidence = Confidence.LOW if test_path else rule.confidence
    return Finding(
        id=rule.id,
        scanner="secrets",
        severity=rule.severity,
        category=rule.category,
        title=rule.title,
        description=f"{rule.title} found in {file.rel}.",
        location=Location(file.rel, line_no, line_no),
        cwe=rule.cwe,
        owasp=rule.owasp,
        evidence=evidence,
        remediation=rule.remediation,
        confidence=confidence,
        metadata={"secret_length": str(len(secret))},
    )
