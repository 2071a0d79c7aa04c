"""Project security policy: `.security.yaml` (spec Appendix B), parsed into typed config."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.engines.security.finding import Severity
from aiagent.engines.security.yamlio import YAMLError, load_yaml

CONFIG_FILENAMES = (".security.yaml", ".security.yml")


@dataclass(frozen=True, slots=True)
class Override:
    id: str
    severity: Severity | None = None
    note: str = ""
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class BannedDependency:
    package: str
    reason: str = ""
    ecosystem: str = ""


@dataclass(frozen=True, slots=True)
class LicensePolicy:
    deny: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SkillRule:
    """A SAST rule a Security Rule Skill contributes (raw, checked by ``skillrules``)."""

    skill: str
    source: str  # "skill NAME: path/to/rules.yaml", for error messages
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SecurityConfig:
    source: str = ""
    rules: tuple[dict[str, Any], ...] = ()
    overrides: dict[str, Override] = field(default_factory=dict)
    banned: tuple[BannedDependency, ...] = ()
    fail_on: Severity | None = None
    max_findings: int | None = None
    exclude: tuple[str, ...] = ()
    allow_paths: tuple[str, ...] = ()
    allow_secrets: tuple[str, ...] = ()
    licenses: LicensePolicy = field(default_factory=LicensePolicy)
    skill_rules: tuple[SkillRule, ...] = ()  # added by aiagent.engines.security.skillrules


def find_config(root: Path) -> Path | None:
    for name in CONFIG_FILENAMES:
        candidate = root / name
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None) -> SecurityConfig:
    """Read a `.security.yaml`; ``None`` gives the defaults."""
    if path is None:
        return SecurityConfig()
    src = str(path)
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SecurityConfigError(src, "", f"cannot read: {exc}") from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}" if mark else ""
        raise SecurityConfigError(src, line, "invalid YAML") from None
    return parse_config(data or {}, src)


def parse_config(data: Any, src: str) -> SecurityConfig:
    _expect(data, dict, src, "(top level)")
    known = {"rules", "overrides", "dependencies", "ci", "exclude", "allowlist", "licenses"}
    for key in data:
        if key not in known:
            raise SecurityConfigError(src, str(key), "unknown key")
    rules = _list(data.get("rules"), src, "rules")
    for i, rule in enumerate(rules):
        _expect(rule, dict, src, f"rules[{i}]")
    ci = data.get("ci") or {}
    _expect(ci, dict, src, "ci")
    allow = data.get("allowlist") or {}
    _expect(allow, dict, src, "allowlist")
    return SecurityConfig(
        source=src,
        rules=tuple(rules),
        overrides=_overrides(data.get("overrides"), src),
        banned=_banned(data.get("dependencies"), src),
        fail_on=_severity(ci.get("fail_on"), src, "ci.fail_on"),
        max_findings=_max_findings(ci.get("max_findings"), src),
        exclude=tuple(_strings(data.get("exclude"), src, "exclude")),
        allow_paths=tuple(_strings(allow.get("paths"), src, "allowlist.paths")),
        allow_secrets=tuple(_strings(allow.get("secrets"), src, "allowlist.secrets")),
        licenses=_licenses(data.get("licenses"), src),
    )


def _overrides(value: Any, src: str) -> dict[str, Override]:
    out: dict[str, Override] = {}
    for i, item in enumerate(_list(value, src, "overrides")):
        where = f"overrides[{i}]"
        _expect(item, dict, src, where)
        rule_id = item.get("id")
        if not isinstance(rule_id, str) or not rule_id:
            raise SecurityConfigError(src, f"{where}.id", "required string")
        sev = _severity(item.get("severity"), src, f"{where}.severity")
        enabled = item.get("enabled", True)
        if not isinstance(enabled, bool):
            raise SecurityConfigError(src, f"{where}.enabled", "must be true or false")
        out[rule_id] = Override(rule_id, sev, str(item.get("note", "")), enabled)
    return out


def _banned(value: Any, src: str) -> tuple[BannedDependency, ...]:
    if value is None:
        return ()
    _expect(value, dict, src, "dependencies")
    out = []
    for i, item in enumerate(_list(value.get("banned"), src, "dependencies.banned")):
        where = f"dependencies.banned[{i}]"
        _expect(item, dict, src, where)
        pkg = item.get("package")
        if not isinstance(pkg, str) or not pkg:
            raise SecurityConfigError(src, f"{where}.package", "required string")
        out.append(BannedDependency(pkg, str(item.get("reason", "")), str(item.get("ecosystem", ""))))
    return tuple(out)


def _licenses(value: Any, src: str) -> LicensePolicy:
    if value is None:
        return LicensePolicy()
    _expect(value, dict, src, "licenses")
    deny = _strings(value.get("deny"), src, "licenses.deny")
    allow = _strings(value.get("allow"), src, "licenses.allow")
    return LicensePolicy(tuple(deny), tuple(allow))


def _severity(value: Any, src: str, where: str) -> Severity | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise SecurityConfigError(src, where, "must be a severity string")
    try:
        return Severity.parse(value)
    except ValueError as exc:
        raise SecurityConfigError(src, where, str(exc)) from None


def _max_findings(value: Any, src: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SecurityConfigError(src, "ci.max_findings", "must be a non-negative integer")
    return value


def _list(value: Any, src: str, where: str) -> list[Any]:
    if value is None:
        return []
    _expect(value, list, src, where)
    return list(value)


def _strings(value: Any, src: str, where: str) -> list[str]:
    items = _list(value, src, where)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise SecurityConfigError(src, f"{where}[{i}]", "must be a string")
    return items


def _expect(value: Any, kind: type, src: str, where: str) -> None:
    if not isinstance(value, kind):
        raise SecurityConfigError(src, where, f"must be a {'mapping' if kind is dict else 'list'}")
