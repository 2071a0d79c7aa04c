"""Attack-chain correlation (FR-4.8): combine findings into exploit paths, by YAML rules."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from aiagent.engines.security.finding import AttackChain, Finding, Severity
from aiagent.engines.security.rulepack import read_pack_text
from aiagent.engines.security.yamlio import load_yaml


@dataclass(frozen=True, slots=True)
class Selector:
    ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    cwes: tuple[str, ...] = ()

    def matches(self, f: Finding) -> bool:
        if self.ids and not any(fnmatchcase(f.id, p) for p in self.ids):
            return False
        if self.categories and f.category.value not in self.categories:
            return False
        return not (self.cwes and f.cwe not in self.cwes)


@dataclass(frozen=True, slots=True)
class ChainRule:
    id: str
    title: str
    severity: Severity
    scope: str
    entry: Selector
    follow: Selector
    impact: str
    likelihood: str


@lru_cache(maxsize=1)
def chain_rules() -> tuple[ChainRule, ...]:
    data = load_yaml(read_pack_text("chains.yaml"))
    return tuple(_rule(raw) for raw in data["chains"])


def _rule(raw: dict[str, Any]) -> ChainRule:
    def sel(d: dict[str, Any]) -> Selector:
        return Selector(tuple(d.get("ids", ())), tuple(d.get("categories", ())),
                        tuple(d.get("cwes", ())))

    return ChainRule(raw["id"], raw["title"], Severity(raw["severity"]), raw["scope"],
                     sel(raw["entry"]), sel(raw["follow"]), raw.get("impact", ""),
                     raw.get("likelihood", ""))


def correlate(findings: list[Finding]) -> list[AttackChain]:
    chains: list[AttackChain] = []
    for rule in chain_rules():
        entries = [f for f in findings if rule.entry.matches(f)]
        follows = [f for f in findings if rule.follow.matches(f)]
        for entry in entries:
            linked = [f for f in follows if f is not entry and _linked(rule.scope, entry, f)]
            linked.sort(key=lambda f: f.location.file != entry.location.file)
            if linked:
                chains.append(_chain(rule, entry, linked[:1] if rule.scope == "project" else linked))
    return chains


def _linked(scope: str, entry: Finding, follow: Finding) -> bool:
    if scope == "project":
        return True
    a, b = entry.location, follow.location
    return a.file == b.file and a.start_line <= b.start_line <= max(a.end_line, a.start_line)


def _chain(rule: ChainRule, entry: Finding, follows: list[Finding]) -> AttackChain:
    """One chain per entry finding; its steps are the entry and every linked finding."""
    key = "|".join([rule.id, entry.fingerprint, *(f.fingerprint for f in follows)])
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    lead = max(follows, key=lambda f: f.severity.rank)
    title = rule.title.format(entry=entry.title, follow=lead.title)
    if len(follows) > 1:
        title += f" (+{len(follows) - 1} more)"
    return AttackChain(
        id=f"{rule.id}-{digest}",
        title=title,
        severity=rule.severity,
        steps=(entry, *follows),
        impact=rule.impact,
        likelihood=rule.likelihood,
    )
