"""``aiagent skill export`` and ``import``: put skills where Claude Code, Codex and Gemini
CLI discover them (seed 000 §2.3, S4), and bring theirs into aiagent.

Each engine folder we write to holds a marker, ``.aiagent-exported.json``, naming the
skills we put there and a digest of what we wrote. Re-export rewrites only what changed;
``prune`` removes only skills the marker names whose content is still ours; a folder we
did not write (or one changed since) is never touched without ``force``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiagent.agent.skills.config import disabled_names, skills_table
from aiagent.agent.skills.distribution.fstree import (
    remove,
    safe_copy,
    staging_dir,
    swap_in,
    tree_digest,
    write_atomic,
)
from aiagent.agent.skills.distribution.names import NAME_RE, DistError
from aiagent.agent.skills.distribution.portable import Portable, render, rules
from aiagent.agent.skills.loader import (
    EXPORT_MARKER,
    default_sources,
    discover,
    read_skill,
    skill_folders,
)
from aiagent.agent.skills.manifest import Manifest, ManifestError
from aiagent.infra.config import paths

MARKER = EXPORT_MARKER
ENGINE_NAMES = ("claude", "codex", "gemini")


def engine_dirs(engines: Iterable[str], scope: str, project_root: Path, home: Path) -> dict[str, Path]:
    table = rules()["engines"]
    base = project_root if scope == "project" else home
    chosen = ENGINE_NAMES if "all" in engines else tuple(dict.fromkeys(engines))
    dirs = {e: base / table[e][scope] for e in chosen}
    if "codex" in dirs and "gemini" in dirs:  # Gemini CLI reads .agents/skills too: one copy, no conflict
        del dirs["gemini"]
        dirs["codex+gemini"] = dirs.pop("codex")
    return dirs


@dataclass(slots=True)
class Outcome:
    engine: str
    folder: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "name: why"
    pruned: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # "name: what"


def read_marker(folder: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((folder / MARKER).read_text("utf-8"))
        skills = data.get("skills") if isinstance(data, dict) else None
        return {str(k): dict(v) for k, v in skills.items() if isinstance(v, dict)} if isinstance(skills, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_marker(folder: Path, owned: dict[str, dict[str, Any]]) -> None:
    if not owned:
        (folder / MARKER).unlink(missing_ok=True)
        return
    write_atomic(folder / MARKER, json.dumps({"written_by": "aiagent skill export", "skills": owned},
                                             indent=2, sort_keys=True) + "\n")


def _current(path: Path) -> str | None:
    """The digest of what sits at ``path`` now (a link: its target), or None."""
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_dir():
        try:
            return tree_digest(path)
        except DistError:
            return "unreadable"
    return "file" if path.exists() else None


def _build(p: Portable, m: Manifest, stage: Path) -> Path:
    folder = stage / p.name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(p.text, encoding="utf-8")
    for rel in p.files:
        src = m.root / rel
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir() and not src.is_symlink():
            safe_copy(src, target)
        else:
            tmp = stage / f".file-{len(list(stage.iterdir()))}"
            safe_copy_file(src, m.root, tmp)
            os.rename(tmp, target)
    return folder


def safe_copy_file(src: Path, root: Path, dest: Path) -> None:
    """One file of a skill (a symlink only if it stays inside ``root``)."""
    import shutil

    real = Path(os.path.realpath(src))
    if not real.is_relative_to(Path(os.path.realpath(root))) or not real.is_file():
        raise DistError(f"{src}: points outside the skill folder or is not a file; not exported")
    shutil.copyfile(real, dest)


def export_one(m: Manifest, folder: Path, owned: dict[str, dict[str, Any]], out: Outcome,
               link: bool, force: bool) -> None:
    try:
        p = render(m)
    except ValueError as exc:
        out.skipped.append(f"{m.name}: {exc}")
        return
    out.warnings += [f"{m.name}: {w}" for w in p.warnings]
    if p.left_out:
        out.warnings.append(f"{m.name}: not exported (SKILL.yaml only): {', '.join(p.left_out)}")
    target = folder / p.name
    now, mine = _current(target), owned.get(p.name)
    if now is not None and not force and (mine is None or mine.get("digest") != now):
        why = "is not ours" if mine is None else "was changed since we exported it"
        out.skipped.append(f"{p.name}: {target} {why}; left alone (--force replaces it)")
        return
    if link and not p.verbatim:
        out.warnings.append(f"{m.name}: cannot be linked (it needs conversion); copied instead")
    stage = staging_dir(folder)
    try:
        if link and p.verbatim:
            built = stage / p.name
            os.symlink(os.path.realpath(m.root), built)
        else:
            built = _build(p, m, stage)
        digest = _current(built)
        if digest == now:
            out.unchanged.append(p.name)
        else:
            swap_in(built, target)
            out.written.append(p.name)
        owned[p.name] = {"digest": digest, "source": str(m.root)}
    finally:
        remove(stage)


def prune(folder: Path, owned: dict[str, dict[str, Any]], keep: set[str], out: Outcome) -> None:
    for name in sorted(set(owned) - keep):
        target = folder / name
        now = _current(target)
        if now is not None and now != owned[name].get("digest"):
            out.skipped.append(f"{name}: {target} was changed since we exported it; not pruned")
        else:
            if now is not None:
                remove(target)
            out.pruned.append(name)
        del owned[name]


def export(manifests: list[Manifest], dirs: dict[str, Path], *, link: bool = False,
           force: bool = False, prune_rest: bool = False) -> list[Outcome]:
    outcomes = []
    for engine, folder in dirs.items():
        out = Outcome(engine, folder)
        folder.mkdir(parents=True, exist_ok=True)
        owned = read_marker(folder)
        for m in manifests:
            export_one(m, folder, owned, out, link, force)
        if prune_rest:
            prune(folder, owned, {m.name for m in manifests}, out)
        _write_marker(folder, owned)
        outcomes.append(out)
    return outcomes


def exportable(skills: dict[str, Any], disabled: set[str], *, builtin: bool = False) -> list[Manifest]:
    """Every enabled skill (``skills``: name -> loader entry), aiagent's built-in ones only
    with ``builtin`` (other agents gain nothing from copies of aiagent's own tools' guides)."""
    return [entry.manifest for name, entry in sorted(skills.items())
            if name not in disabled and (builtin or entry.source != "builtin")]


@dataclass(slots=True)
class Imported:
    done: list[str] = field(default_factory=list)  # "name from folder"
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def import_skills(dirs: dict[str, Path], target: Path, names: set[str], force: bool) -> Imported:
    """Copy the SKILL.md skills found in the engines' folders (not ones we exported) into
    ``target``, each validated and moved in by rename."""

    result = Imported()
    seen: set[str] = set()
    for folder in dirs.values():
        owned = read_marker(folder)
        for skill in skill_folders(folder):
            warnings: list[str] = []
            try:
                m = read_skill(skill, warnings)
            except ManifestError as exc:
                result.skipped.append(f"{skill}: {exc}")
                continue
            if m.name in owned or m.name in seen or (names and m.name not in names):
                continue
            seen.add(m.name)
            if not NAME_RE.match(m.name):
                result.skipped.append(f"{skill}: name {m.name!r} is not a valid skill name")
                continue
            dest = target / m.name
            if (dest.exists() or dest.is_symlink()) and not force:
                result.skipped.append(f"{m.name}: {dest} exists (--force replaces it)")
                continue
            _import_one(skill, dest)
            result.done.append(f"{m.name} from {skill}")
            result.warnings += [f"{m.name}: {w}" for w in warnings]
    missing = names - seen
    result.skipped += [f"{n}: not found in the engines' skill folders" for n in sorted(missing)]
    return result


def _import_one(skill: Path, dest: Path) -> None:
    stage = staging_dir(dest.parent)
    try:
        safe_copy(Path(os.path.realpath(skill)), stage / dest.name)
        swap_in(stage / dest.name, dest)
    finally:
        remove(stage)


def aiagent_skills(settings: Any, root: Path, home: Path) -> tuple[dict[str, Any], set[str]]:
    """aiagent's own skills (name -> loaded skill) and the disabled names, leaving out the
    other engines' folders (what we exported there, or theirs): what an export starts from."""

    table = skills_table(settings)
    engines = {os.path.realpath(p) for scope in ("project", "user")
               for p in engine_dirs(["all"], scope, root, home).values()}
    sources = [s for s in default_sources(settings.workspace, root, paths.config_dir(settings.env), home, table)
               if os.path.realpath(s.path) not in engines]
    found = discover(sources)
    return found.skills, disabled_names(table, found.skills)
