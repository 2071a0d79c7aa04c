"""Findings as a skill scanner returns them (plain JSON-like mappings) → :class:`Finding`.

A skill scanner returns a list of mappings. Required: ``id`` (or ``rule``) and ``file``
(or ``path``, relative to the audited folder). Optional: ``title``, ``message`` (or
``description``), ``severity`` (default medium), ``category`` (default misconfiguration),
``line`` (or ``start_line``), ``end_line``, ``function``, ``cwe``, ``owasp``,
``evidence``, ``remediation``, ``confidence``, ``references`` and ``metadata``. An
item that does not fit is dropped with a problem line naming the skill and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from aiagent.engines.security.finding import Category, Confidence, Finding, Location, Severity
from aiagent.engines.security.redaction import evidence as redacted_evidence

MAX_FINDINGS = 5000
MAX_TEXT = 2000


class BadFinding(ValueError):
    pass


def to_findings(raw: Any, skill: str, scanner: str,
                root: str = "") -> tuple[list[Finding], list[str]]:
    """The findings in ``raw`` and one problem line per item that was dropped. An absolute
    path under ``root`` is made relative to it."""
    where = f"skill {skill}: scanner {scanner}"
    if isinstance(raw, Mapping) and "__error__" in raw:
        return [], [f"{where}: {raw['__error__']}"]
    if isinstance(raw, Mapping) and isinstance(raw.get("findings"), list):
        raw = raw["findings"]
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], [f"{where}: must return a list of findings, got {type(raw).__name__}"]
    findings, problems = [], []
    for i, item in enumerate(raw[:MAX_FINDINGS]):
        try:
            findings.append(_finding(item, skill, scanner, root))
        except BadFinding as exc:
            problems.append(f"{where}: finding [{i}]: {exc}")
    if len(raw) > MAX_FINDINGS:
        problems.append(f"{where}: only the first {MAX_FINDINGS} of {len(raw)} findings kept")
    return findings, problems


def _finding(item: Any, skill: str, scanner: str, root: str) -> Finding:
    if not isinstance(item, Mapping):
        raise BadFinding(f"must be a mapping, got {type(item).__name__}")
    rule_id = _text(item, "id") or _text(item, "rule")
    if not rule_id:
        raise BadFinding("id: required (the rule id)")
    start = _line(item, "start_line") or _line(item, "line")
    return Finding(
        id=rule_id,
        scanner=f"{skill}/{scanner}",
        severity=_choice(Severity, item, "severity", Severity.MEDIUM),
        category=_choice(Category, item, "category", Category.MISCONFIGURATION),
        title=_text(item, "title") or rule_id,
        description=_text(item, "message") or _text(item, "description"),
        location=Location(_file(item, root), start, max(_line(item, "end_line"), start), _text(item, "function")),
        cwe=_text(item, "cwe"),
        owasp=_text(item, "owasp"),
        evidence=redacted_evidence(_text(item, "evidence")),
        remediation=_text(item, "remediation"),
        confidence=_choice(Confidence, item, "confidence", Confidence.MEDIUM),
        references=tuple(str(r) for r in _list(item, "references")),
        metadata={str(k): str(v)[:MAX_TEXT] for k, v in _mapping(item, "metadata").items()},
        skill_source=skill,
    )


def _text(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise BadFinding(f"{key}: must be a string")
    return str(value).strip()[:MAX_TEXT]


def _line(item: Mapping[str, Any], key: str) -> int:
    value = item.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadFinding(f"{key}: must be a line number (an integer ≥ 1)")
    return value


def _file(item: Mapping[str, Any], root: str) -> str:
    name = _text(item, "file") or _text(item, "path")
    if not name:
        raise BadFinding("file: required (a path relative to the audited folder)")
    path = PurePosixPath(name.replace("\\", "/"))
    base = PurePosixPath(root.replace("\\", "/")) if root else None
    if base is not None and path.is_absolute() and path.is_relative_to(base):
        path = path.relative_to(base)
    parts = [p for p in path.parts if p not in (".", "")]
    if path.is_absolute() or ".." in parts or not parts:
        raise BadFinding(f"file: {name!r} must be a path inside the audited folder")
    return "/".join(parts)


def _choice(kind: Any, item: Mapping[str, Any], key: str, default: Any) -> Any:
    value = _text(item, key)
    if not value:
        return default
    try:
        return kind(value.lower())
    except ValueError:
        names = ", ".join(str(v) for v in kind.__members__.values())
        raise BadFinding(f"{key}: unknown value {value!r} (expected one of: {names})") from None


def _list(item: Mapping[str, Any], key: str) -> list[Any]:
    value = item.get(key) or []
    if not isinstance(value, list):
        raise BadFinding(f"{key}: must be a list")
    return value


def _mapping(item: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = item.get(key) or {}
    if not isinstance(value, Mapping):
        raise BadFinding(f"{key}: must be a mapping")
    return value
