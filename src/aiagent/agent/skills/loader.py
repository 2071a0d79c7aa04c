"""Discovery: find every skill folder in every source and read its manifest.

Sources, later wins (spec §4.3): built-in (package data), user (``~/.config/aiagent/skills``
plus the folders other agents use, ``~/.claude/skills`` and ``~/.agents/skills``), project
(``.agent/skills``, ``.claude/skills``, ``.agents/skills``), inline (paths listed in the
``skills:`` frontmatter of ``AGENT.md`` or given to ``--skills``). A skill folder holds
``SKILL.yaml`` or ``SKILL.md`` (or both). The scan is bounded in depth and count. A skill
that cannot be read is kept as a :class:`BrokenSkill` so it can be shown, never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.skills.manifest import Manifest, ManifestError, load_manifest
from aiagent.agent.skills.skillmd import load_skill_md, merge_yaml_and_md, split_frontmatter

MANIFEST_NAMES = ("SKILL.yaml", "SKILL.yml", "skill.yaml")
MD_NAMES = ("SKILL.md", "skill.md")
MAX_DEPTH = 2  # source/skill or source/group/skill
MAX_PER_SOURCE = 200
SOURCE_ORDER = ("builtin", "user", "project", "inline")


@dataclass(frozen=True, slots=True)
class Source:
    kind: str  # builtin | user | project | inline
    path: Path


@dataclass(slots=True)
class SkillEntry:
    manifest: Manifest
    source: str
    warnings: list[str] = field(default_factory=list)
    shadows: list[str] = field(default_factory=list)  # folders it overrides

    @property
    def name(self) -> str:
        return self.manifest.name


@dataclass(frozen=True, slots=True)
class BrokenSkill:
    name: str  # the folder name
    path: Path
    source: str
    error: str


@dataclass(slots=True)
class Discovery:
    skills: dict[str, SkillEntry] = field(default_factory=dict)
    broken: list[BrokenSkill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    held: dict[str, SkillEntry] = field(default_factory=dict)  # not admitted: untrusted folder
    overrides: dict[str, str] = field(default_factory=dict)  # name -> which one wins and why


def builtin_dir() -> Path:
    return Path(str(resources.files("aiagent.agent.skills").joinpath("builtin")))


def default_sources(
    workspace: Path,
    project_root: Path,
    config_dir: Path,
    home: Path,
    settings: Mapping[str, Any] | None = None,
    inline: Iterable[Path] = (),
) -> list[Source]:
    """Every source folder, lowest priority first."""
    settings = settings or {}
    user_dir = settings.get("user_skills_dir")
    user = Path(str(user_dir)).expanduser() if user_dir else config_dir / "skills"
    sources = [Source("builtin", builtin_dir())]
    sources += [Source("user", p) for p in (home / ".claude/skills", home / ".agents/skills", user)]
    sources += [Source("project", project_root / p) for p in (".claude/skills", ".agents/skills", ".agent/skills")]
    if workspace.resolve() != project_root.resolve():
        sources.append(Source("project", workspace / ".agent/skills"))
    refs = [*agent_md_skill_paths(project_root), *inline]
    sources += [Source("inline", p) for p in refs]
    return sources


Admit = Callable[[Manifest, str], bool]
"""Whether a skill read from a source of this kind may be used (see skills/factory.py:
project skills with code in an untrusted folder are not)."""


#: written by ``aiagent skill export`` in another agent's skills folder: the skills it
#: lists are copies of aiagent's own, left out of discovery (no duplicate, no override note)
EXPORT_MARKER = ".aiagent-exported.json"


def exported_names(folder: Path) -> set[str]:
    """The skills ``aiagent skill export`` wrote into ``folder`` (its marker file)."""
    try:
        data = json.loads((folder / EXPORT_MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return set()
    skills = data.get("skills") if isinstance(data, dict) else None
    return {str(name) for name in skills} if isinstance(skills, dict) else set()


def discover(sources: Iterable[Source], admit: Admit | None = None) -> Discovery:
    found = Discovery()
    seen: set[Path] = set()
    for source in sources:
        copies = exported_names(source.path)
        for folder in skill_folders(source.path):
            real = folder.resolve()
            if real in seen or (folder.parent == source.path and folder.name in copies):
                continue
            seen.add(real)
            _add(found, folder, source.kind, admit)
    return found


def _add(found: Discovery, folder: Path, kind: str, admit: Admit | None = None) -> None:
    warnings: list[str] = []
    try:
        manifest = read_skill(folder, warnings)
    except ManifestError as exc:
        found.broken = [b for b in found.broken if b.path != folder]
        found.broken.append(BrokenSkill(folder.name, folder, kind, str(exc)))
        return
    if admit is not None and not admit(manifest, kind):
        found.held[manifest.name] = SkillEntry(manifest, kind, warnings)
        return  # an earlier skill of the same name (a user's) stays in effect
    previous = found.skills.get(manifest.name)
    entry = SkillEntry(manifest, kind, warnings)
    if previous is not None:
        entry.shadows = [*previous.shadows, str(previous.manifest.root)]
        found.overrides[manifest.name] = override_note(entry, previous)
    found.skills[manifest.name] = entry
    found.warnings.extend(warnings)


def override_note(winner: SkillEntry, loser: SkillEntry) -> str:
    """One line: which of several skills of the same name is used, and why."""
    if winner.source == loser.source:
        why = (f"both are {winner.source} skills, and the folder read later wins "
               "(.claude/skills, then .agents/skills, then aiagent's own skills folder)")
    else:
        why = f"a {winner.source} skill wins over a {loser.source} one ({' < '.join(SOURCE_ORDER)})"
    return (f"skill {winner.name}: using {winner.manifest.root} ({winner.source}) over "
            f"{', '.join(winner.shadows)}: {why}")


def read_skill(folder: Path, warnings: list[str]) -> Manifest:
    yaml_file = next((folder / n for n in MANIFEST_NAMES if (folder / n).is_file()), None)
    md_file = next((folder / n for n in MD_NAMES if (folder / n).is_file()), None)
    if yaml_file and md_file:
        return merge_yaml_and_md(yaml_file, md_file, warnings)
    if yaml_file:
        return load_manifest(yaml_file)
    if md_file:
        return load_skill_md(md_file, warnings)
    raise ManifestError(f"{folder}: no SKILL.yaml or SKILL.md")


def is_skill_folder(folder: Path) -> bool:
    return any((folder / n).is_file() for n in (*MANIFEST_NAMES, *MD_NAMES))


def skill_folders(base: Path) -> list[Path]:
    """Skill folders under ``base`` (or ``base`` itself), at most :data:`MAX_DEPTH` deep."""
    if not base.is_dir():
        return []
    if is_skill_folder(base):
        return [base]
    found: list[Path] = []
    frontier = [base]
    for _depth in range(MAX_DEPTH):
        next_frontier: list[Path] = []
        for folder in frontier:
            for child in _subfolders(folder):
                if is_skill_folder(child):
                    found.append(child)
                    if len(found) >= MAX_PER_SOURCE:
                        return found
                else:
                    next_frontier.append(child)
        frontier = next_frontier
    return found


def _subfolders(folder: Path) -> list[Path]:
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
    return [c for c in children if not c.name.startswith((".", "_", "__"))]


def agent_md_frontmatter(project_root: Path) -> dict[str, Any]:
    """The YAML frontmatter of the project's ``AGENT.md`` (or ``AGENTS.md``), if any."""
    import yaml

    for name in ("AGENT.md", "AGENTS.md"):
        path = project_root / name
        if not path.is_file():
            continue
        try:
            block, _ = split_frontmatter(path.read_text("utf-8", errors="replace"))
            data = yaml.safe_load(block) if block else None
        except (OSError, yaml.YAMLError):
            return {}
        return data if isinstance(data, dict) else {}
    return {}


def agent_md_skills(project_root: Path) -> list[str]:
    """Entries of ``skills:`` in ``AGENT.md`` frontmatter: skill names or folder paths."""
    value = agent_md_frontmatter(project_root).get("skills") or []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(i).strip() for i in items if str(i).strip()]


def looks_like_path(ref: str) -> bool:
    return "/" in ref or ref.startswith(".") or ref.startswith("~")


def agent_md_skill_paths(project_root: Path) -> list[Path]:
    return [
        (project_root / Path(r).expanduser()).resolve()
        for r in agent_md_skills(project_root)
        if looks_like_path(r)
    ]
