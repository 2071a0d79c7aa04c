"""Merge LLM findings into the static ones, then correlate attack chains over all of them.

An LLM finding that says what a finding already there says (same file, overlapping lines,
same CWE, or same category when either has no CWE) is not added: a static finding is
marked ``confirmed_by`` the analyzer instead. The project's policy applies to LLM findings
as to static ones (``allow_paths``, severity overrides, disabled rule ids).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.correlator import correlate
from aiagent.engines.security.finding import AttackChain, Finding, assign_fingerprints, sort_key
from aiagent.engines.security.pathcontext import apply_context, default_categories
from aiagent.engines.security.postprocess import allowlisted, apply_override


@dataclass(slots=True)
class Merged:
    findings: list[Finding]
    chains: list[AttackChain]
    added: int
    duplicates: int


def same_issue(a: Finding, b: Finding) -> bool:
    la, lb = a.location, b.location
    if la.file != lb.file:
        return False
    if la.start_line > max(lb.end_line, lb.start_line) or lb.start_line > max(la.end_line, la.start_line):
        return False
    if a.cwe and b.cwe:
        return a.cwe == b.cwe
    return a.category == b.category


def merge(static: Sequence[Finding], llm: Sequence[Finding], config: SecurityConfig) -> Merged:
    kept = list(static)
    new: list[Finding] = []
    duplicates = 0
    for finding in _policy(llm, config):
        index = next((i for i, f in enumerate(kept) if same_issue(f, finding)), None)
        if index is not None:
            kept[index] = _confirmed(kept[index], finding)
            duplicates += 1
        elif any(same_issue(f, finding) for f in new):
            duplicates += 1
        else:
            new.append(finding)
    findings = sorted([*kept, *assign_fingerprints(new)], key=sort_key)
    return Merged(findings, correlate(findings), len(new), duplicates)


def _confirmed(static: Finding, llm: Finding) -> Finding:
    meta = dict(static.metadata)
    names = [n for n in meta.get("confirmed_by", "").split(",") if n]
    meta["confirmed_by"] = ",".join(dict.fromkeys([*names, llm.scanner]))
    return replace(static, metadata=meta)


def _policy(findings: Sequence[Finding], config: SecurityConfig) -> list[Finding]:
    """The project's policy, then path context (tests, examples, ... are demoted), as for
    static findings."""
    categories = default_categories()
    out = []
    for finding in findings:
        if allowlisted(finding.location.file, config.allow_paths):
            continue
        overridden = apply_override(finding, config)
        if overridden is not None:
            out.append(apply_context(overridden, categories))
    return out


