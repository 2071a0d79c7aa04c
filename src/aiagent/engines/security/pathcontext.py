"""Path categories (source, script, test, example, fixture, docs, vendored, generated) and
the severity demotion of findings outside source code.

The globs live in ``data/path_categories.toml``; the first category whose globs match a
path wins, and a path no category matches is ``source``. A category may demote by its own
number of steps (fixtures: test keys and certificates fall below high). Developer scripts
(``tools/``, ``scripts/``) are demoted only for code findings that no outside input (request
or browser data) reaches: a hard-coded secret there is still a leak, and a script that
serves requests is an entry point.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

import pathspec

from aiagent.engines.security.finding import Finding, Severity

SOURCE = "source"
SCRIPT = "script"
CATEGORIES = ("source", "script", "test", "example", "fixture", "docs", "vendored",
              "generated")
# taint source kinds that come from outside the program's own user (see rules/taint/*.yaml)
OUTSIDE_INPUT = frozenset({"http", "json", "dom"})
_DATA = "path_categories.toml"
_BY_RANK = {s.rank: s for s in Severity}


@dataclass(frozen=True, slots=True)
class PathCategories:
    rules: tuple[tuple[str, pathspec.GitIgnoreSpec], ...]
    demotion_steps: int
    steps_by_category: tuple[tuple[str, int], ...] = ()

    def steps(self, category: str) -> int:
        """Severity levels a finding in ``category`` loses (its own, else the default)."""
        return dict(self.steps_by_category).get(category, self.demotion_steps)

    def category(self, rel: str) -> str:
        for name, spec in self.rules:
            if spec.match_file(rel):
                return name
        return SOURCE


def parse_categories(text: str, source: str = _DATA) -> PathCategories:
    data = tomllib.loads(text)
    steps = _steps(data.get("demotion_steps", 1), f"{source}: demotion_steps")
    rules, own = [], []
    for i, entry in enumerate(data.get("category", [])):
        name, globs = entry.get("name"), entry.get("globs")
        if name not in CATEGORIES or name == SOURCE:
            raise ValueError(f"{source}: category[{i}].name: unknown category {name!r}")
        if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
            raise ValueError(f"{source}: category[{i}].globs: must be a list of strings")
        rules.append((name, pathspec.GitIgnoreSpec.from_lines(globs)))
        if "demotion_steps" in entry:
            own.append((name, _steps(entry["demotion_steps"],
                                     f"{source}: category[{i}].demotion_steps")))
    return PathCategories(tuple(rules), steps, tuple(own))


def _steps(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 4:
        raise ValueError(f"{where}: must be an integer from 0 to 4")
    return value


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
    if category == SCRIPT and not _script_noise(finding):
        return replace(finding, path_category=category)
    lowered = demote(finding.severity, cats.steps(category))
    if lowered is finding.severity:
        return replace(finding, path_category=category)
    meta = dict(finding.metadata)
    meta.setdefault("original_severity", finding.severity.value)
    meta["demoted_for"] = category
    return replace(finding, severity=lowered, path_category=category, metadata=meta)


def _script_noise(finding: Finding) -> bool:
    """A code finding in a developer script that no outside input reaches (a fixed command
    run by a release tool): demoted. Secrets, configuration and tainted flows are not."""
    if finding.scanner != "sast":
        return False
    kinds = set(finding.metadata.get("input", "").split(","))
    return not kinds & OUTSIDE_INPUT
