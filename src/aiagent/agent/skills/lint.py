"""What ``aiagent skill test`` warns about beside failing cases (``--strict`` makes every
warning a failure):

* the loader's warnings (a ``SKILL.md`` that bends the agentskills.io rules);
* portability: frontmatter fields beyond ``name`` and ``description`` (not every engine
  reads them), and tool names of one engine in the instructions;
* broken references: a ``scripts/``, ``references/`` or ``assets/`` file, or a Markdown
  link, that the instructions name but the skill does not have;
* coverage: a declared tool, workflow or scanner no case exercises, a prompt skill without
  a ``prompt: true`` case, and a case with no ``expect`` (it cannot fail).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.skills.loader import Source, discover
from aiagent.agent.skills.manifest import Manifest, ManifestError
from aiagent.agent.skills.prompting import instructions
from aiagent.agent.skills.skillmd import split_frontmatter

PORTABLE_FIELDS = {"name", "description"}
LINK_RE = re.compile(r"\]\(\s*<?([^)\s>#]+)")
RESOURCE_REF_RE = re.compile(r"`((?:scripts|references|assets)/[^`\s]+)`")


@cache
def engine_tool_names() -> dict[str, str]:
    """Tool names that belong to one engine (name -> engine), from package data."""
    text = resources.files("aiagent.agent.skills").joinpath("data/engine_tools.toml").read_text("utf-8")
    data = tomllib.loads(text)
    return {tool: engine for engine, names in data["engines"].items() for tool in names}


def load_one(folder: Path) -> tuple[Manifest, list[str]]:
    """The skill in ``folder`` and its loader warnings; raises ManifestError."""
    found = discover([Source("inline", folder)])
    if found.broken:
        raise ManifestError(found.broken[0].error)
    entry = next((e for e in found.skills.values() if e.manifest.root.resolve() == folder.resolve()), None)
    if entry is None:
        raise ManifestError(f"{folder}: no SKILL.yaml or SKILL.md")
    return entry.manifest, list(entry.warnings)


def portability(m: Manifest) -> list[str]:
    out: list[str] = []
    md = m.root / "SKILL.md"
    if m.format == "md" and md.is_file():
        import yaml

        block, _ = split_frontmatter(md.read_text("utf-8", errors="replace"))
        try:
            data = yaml.safe_load(block or "") or {}
        except yaml.YAMLError:
            data = {}
        extra = sorted(set(data) - PORTABLE_FIELDS) if isinstance(data, dict) else []
        if extra:
            out.append(f"{md}: not portable: frontmatter {', '.join(extra)} (only name and description work in every engine)")
    body = instructions(m)
    for tool, engine in sorted(engine_tool_names().items()):
        if re.search(rf"`{re.escape(tool)}[`(]", body):
            out.append(f"{m.file}: not portable: the instructions name {engine}'s tool `{tool}`; "
                       "describe the action instead (\"when you run shell commands…\")")
    return out


def broken_references(m: Manifest) -> list[str]:
    body = instructions(m)
    root = m.root.resolve()
    refs = [*RESOURCE_REF_RE.findall(body), *(r for r in LINK_RE.findall(body) if "://" not in r and not r.startswith(("/", "mailto:")))]
    missing = []
    for rel in dict.fromkeys(r.removeprefix("./") for r in refs):
        target = (root / rel).resolve()
        if target.is_relative_to(root) and not target.exists():
            missing.append(f"{m.file}: the instructions refer to {rel}, which the skill does not have")
    return missing


def coverage(m: Manifest, cases: Iterable[Mapping[str, Any]]) -> list[str]:
    cases = list(cases)
    out = [f"{m.root}/tests: case {c.get('name') or i + 1!r} has no expect: it cannot fail"
           for i, c in enumerate(cases) if not c.get("expect")]
    used = {(kind, str(c[kind])) for c in cases for kind in ("tool", "workflow", "scanner", "hook") if kind in c}
    declared = [("tool", t.name) for t in m.tools] + [("workflow", w.name) for w in m.workflows]
    declared += [("scanner", s.name) for s in (m.security_rules.scanners if m.security_rules else ())]
    out += [f"{m.root}: {kind} {name} has no test case" for kind, name in declared if (kind, name) not in used]
    if "prompt" in m.types and m.prompt is not None and not any(c.get("prompt") for c in cases):
        out.append(f"{m.root}: a prompt skill without a `prompt: true` case (its instructions are never checked)")
    return out


def lint(folder: Path, cases: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every warning for the skill in ``folder`` given its test ``cases``."""
    m, warnings = load_one(folder)
    return [*warnings, *portability(m), *broken_references(m), *coverage(m, cases)]
