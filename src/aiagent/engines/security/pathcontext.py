"""Path categories (source, test, example, fixture, docs, vendored, generated) and the
severity demotion of findings outside source code.

The globs live in ``data/path_categories.toml``; the first category whose globs match a
path wins, and a path no category matches is ``source``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

import pathspec

from aiagent.engines.security.finding import Finding, Severity

SOURCE = "source"
CATEGORIES = ("source", "test", "example", "fixture", "docs", "vendored", "generated")
_DATA = "path_categories.toml"
_BY_RANK = {s.rank: s for s in Severity}


@dataclass(frozen=True, slots=True)
class PathCategories:
    rules: tuple[tuple[str, pathspec.GitIgnoreSpec], ...]
    demotion_steps: int

    def category(self, rel: str) -> str:
        for name, spec in self.rules:
            if spec.match_file(rel):
                return name
        return SOURCE


def parse_categories(text: str, source: str = _DATA) -> PathCategories:
    data = tomllib.loads(text)
    steps = data.get("demotion_steps", 1)
    if not isinstance(steps, int) or not 0 <= steps <= 4:
        raise ValueError(f"{source}: demotion_steps: must be an integer from 0 to 4")
    rules = []
    for i, entry in enumerate(data.get("category", [])):
        name, globs = entry.get("name"), entry.get("globs")
        if name not in CATEGORIES or name == SOURCE:
            raise ValueError(f"{source}: category[{i}].name: unknown category {name!r}")
        if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
            raise ValueError(f"{source}: category[{i}].globs: must be a list of strings")
        rules.append((name, pathspec.GitIgnoreSpec.from_lines(globs)))
    return PathCategories(tuple(rules), steps)


@lru_cache(maxsize=1)
def default_categories() -> PathCategories:
    text = (resources.files("aiagent.engines.security.data") / _DATA).read_text("utf-8")
    return parse_categories(text)


def demote(severity: Severity, steps: int) -> Severity:
    """``steps`` levels down; info is the floor."""
    return _BY_RANK[max(severity.rank - steps, Severity.INFO.rank)]


def apply_context(finding: Finding, categories: PathCategories | None = None) -> Finding:
    """Tag the finding with its path category and demote it when that is not source."""
    cats = categories or default_categories()
    category = cats.category(finding.location.file) if finding.location.file else SOURCE
    if category == SOURCE:
        return replace(finding, path_category=SOURCE)
    lowered = demote(finding.severity, cats.demotion_steps)
    if lowered is finding.severity:
        return replace(finding, path_category=category)
    meta = dict(finding.metadata)
    meta.setdefault("original_severity", finding.severity.value)
    meta["demoted_for"] = category
    return replace(finding, severity=lowered, path_category=category, metadata=meta)
