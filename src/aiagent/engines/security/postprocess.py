"""After scanning: allowlists, severity overrides, path context (demotion), fingerprints,
order, chains (sorted by score), scores."""

from __future__ import annotations

from dataclasses import replace
from fnmatch import fnmatchcase

from aiagent.engines.security.config import SecurityConfig
from aiagent.engines.security.correlator import correlate
from aiagent.engines.security.discovery import Inventory
from aiagent.engines.security.finding import (
    AttackChain,
    Finding,
    assign_fingerprints,
    chain_sort_key,
    sort_key,
)
from aiagent.engines.security.pathcontext import SOURCE, apply_context, default_categories, demote
from aiagent.engines.security.prioritizer import prepare_scoring, score_files


def finalize(findings: list[Finding], config: SecurityConfig,
             inventory: Inventory) -> tuple[list[Finding], list[AttackChain], dict[str, int]]:
    kept = [f for f in findings if not allowlisted(f.location.file, config.allow_paths)]
    kept = [o for o in (apply_override(f, config) for f in kept) if o is not None]
    categories = default_categories()
    kept = [apply_context(f, categories) for f in kept]
    kept = assign_fingerprints(sorted(kept, key=sort_key))
    kept = _dedupe(kept)
    chains = sorted((_chain_context(c, categories.demotion_steps) for c in correlate(kept)),
                    key=chain_sort_key)
    scores = score_files(inventory, kept)
    return kept, chains, scores


def prepare_finalize() -> None:
    """Compile now what :func:`finalize` needs (path categories, risk signals): the engine
    calls it while worker processes scan, so it is off the audit's critical path."""
    default_categories()
    prepare_scoring()


def apply_override(finding: Finding, config: SecurityConfig) -> Finding | None:
    override = config.overrides.get(finding.id)
    if override is None:
        return finding
    if not override.enabled:
        return None
    meta = dict(finding.metadata)
    if override.note:
        meta["override_note"] = override.note
    if override.severity is not None and override.severity != finding.severity:
        meta["original_severity"] = finding.severity.value
        return replace(finding, severity=override.severity, metadata=meta)
    return replace(finding, metadata=meta)


def allowlisted(rel: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``rel`` is under ``allow_paths`` (globs, or a folder prefix)."""
    for pattern in patterns:
        if any(ch in pattern for ch in "*?["):
            if fnmatchcase(rel, pattern):
                return True
        elif rel == pattern or rel.startswith(pattern.rstrip("/") + "/"):
            return True
    return False


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[str] = set()
    out = []
    for f in findings:
        if f.fingerprint not in seen:
            seen.add(f.fingerprint)
            out.append(f)
    return out


def _chain_context(chain: AttackChain, steps: int) -> AttackChain:
    """A chain whose entry point is outside source code (tests, examples…) is demoted the
    same way: that entry is not reachable in what ships, whatever it links to."""
    if not chain.steps or chain.steps[0].path_category == SOURCE:
        return chain
    return replace(chain, severity=demote(chain.severity, steps))
