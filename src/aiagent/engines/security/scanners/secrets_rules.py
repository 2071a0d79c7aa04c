"""Secret rules: parsed from the YAML pack (and `.security.yaml` allowlists)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Category, Confidence, Severity
from aiagent.engines.security.regexsafe import RegexCompileError, SafePattern
from aiagent.engines.security.rulepack import load_pack, read_pack_text
from aiagent.engines.security.yamlio import load_yaml

PACK = "secrets.yaml"

# Values that are obviously not real secrets (checked case-insensitively on the value).
PLACEHOLDER_PATTERN = (
    r"(?i)(?:^(?:x{3,}|\*{3,}|\.{3,}|changeme|change_me|changeit|password\d*|passw0rd|secret"
    r"|s3cr3t|admin|root|null|none|undefined|true|false|todo|tbd|dummy\w*|fake\w*|sample\w*"
    r"|test\w*|mock\w*|redacted|placeholder|hunter2|foobar|letmein|qwerty\w*|123456\w*)$"
    r"|example|placeholder|your[_-]?|<[^>]*>|\$\{|\{\{|%\(|(?-i:\$[A-Z_]{3,})|xxxx|\*\*\*\*"
    r"|replace[_-]?me|insert[_-]|redacted|abcdefghij|0123456789|sha\d+-)"
)

# Interpolations in a string template: `"${a}"`, `"#{a}"` (Ruby), `"{{a}}"`, `"%(a)s"`,
# `"{a}"`, and `"$user:$password"` in the languages where a bare `$name` interpolates. A
# generic (assignment) hit whose value is mostly such parts is code building a string,
# not a hard-coded secret.
TEMPLATE_PART_PATTERN = rb"\$\{[^}]*\}|#\{[^}]*\}|\{\{[^}]*\}\}|%\(\w+\)[sd]|%[sd]|\{\w*\}"
DOLLAR_NAME_PATTERN = rb"\$[A-Za-z_]\w*(?:\[[^\]]*\]|->\w+)*"
DOLLAR_NAME_LANGUAGES = frozenset({"kotlin", "php", "bash", "groovy", "perl", "dart"})
# Fewer literal letters and digits than this left once the interpolations are removed.
TEMPLATE_MIN_LITERAL = 6

# Paths where only high-confidence, provider-specific hits are kept.
TEST_PATH_PATTERN = (
    r"(?i)(?:^|/)(?:tests?|__tests__|spec|specs|fixtures?|testdata|mocks?|examples?|samples?"
    r"|docs?)/|(?:^|/)(?:test_[^/]*|[^/]*_test\.\w+|[^/]*\.test\.\w+|[^/]*\.spec\.\w+"
    r"|[^/]*\.(?:example|sample|template|tmpl|dist))$"
)


@dataclass(frozen=True, slots=True)
class SecretRule:
    id: str
    title: str
    pattern: SafePattern
    secret_group: int
    keywords: tuple[bytes, ...]
    severity: Severity
    confidence: Confidence
    category: Category
    cwe: str
    owasp: str
    remediation: str
    entropy: float = 0.0
    charset_entropy: tuple[tuple[str, float], ...] = ()
    generic: bool = False
    skip_kinds: frozenset[str] = frozenset()
    skip_paths: re.Pattern[str] | None = None  # files this rule never reads (translations…)


def load_secret_rules() -> list[SecretRule]:
    defaults = load_yaml(read_pack_text(PACK)).get("defaults", {})
    return [_parse(raw, defaults) for raw in load_pack(PACK)]


def _parse(raw: dict[str, Any], defaults: dict[str, Any]) -> SecretRule:
    merged = {**defaults, **raw}
    rule_id = str(merged.get("id", "?"))
    try:
        pattern = SafePattern(str(merged["regex"]))
        charset = merged.get("charset_entropy") or {}
        return SecretRule(
            id=rule_id,
            title=str(merged["title"]),
            pattern=pattern,
            secret_group=int(merged.get("secret_group", 1)),
            keywords=tuple(str(k).lower().encode() for k in merged.get("keywords", [])),
            severity=Severity.parse(str(merged["severity"])),
            confidence=Confidence(str(merged.get("confidence", "medium"))),
            category=Category(str(merged["category"])),
            cwe=str(merged.get("cwe", "")),
            owasp=str(merged.get("owasp", "")),
            remediation=str(merged.get("remediation", "")).strip(),
            entropy=float(merged.get("entropy", 0.0)),
            charset_entropy=tuple((str(k), float(v)) for k, v in charset.items()),
            generic=bool(merged.get("generic", False)),
            skip_kinds=frozenset(merged.get("skip_kinds", [])),
            skip_paths=_paths(merged.get("skip_paths")),
        )
    except (KeyError, ValueError, TypeError, RegexCompileError, re.error) as exc:
        raise SecurityConfigError(f"rules/{PACK}", rule_id, f"bad rule: {exc}") from None


def _paths(patterns: Any) -> re.Pattern[str] | None:
    """``skip_paths``: regexes searched, ignoring case, in the path relative to the audited
    folder."""
    if not patterns:
        return None
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ValueError("skip_paths: must be a list of regexes")
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
