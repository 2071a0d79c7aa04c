"""Subagent profiles: Markdown files with YAML front matter, Claude Code's agent format.

A profile ``NAME.md`` holds ``name``, ``description``, optionally ``tools`` (a comma-separated
list or a YAML list; omitted = the parent's tools), ``disallowedTools``, ``model``
(``inherit``, an alias, or a model name) and ``permissionMode`` / ``approval_mode``; the body is
the child's instructions. Where they are read, later folders overriding earlier ones by name:

1. the built-in profiles (``general``), beside this module;
2. the user's: ``~/.claude/agents/``, then ``<config dir>/agents/``;
3. the project's, in a trusted folder only: ``.claude/agents/``, then ``.agent/agents/``.

Reading is strict where permissions are concerned: a file that cannot be parsed, a bad name
or an unreadable ``disallowedTools`` entry makes the profile unusable (one line naming the
file, in :attr:`Catalog.broken`); unknown names in ``tools`` only narrow the list and are
dropped with a warning. How a profile is narrowed to its parent's tools and mode is
:func:`narrow_tools` / :func:`narrow_mode`; neither ever widens anything.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from aiagent.agent.skills.manifest import ManifestError
from aiagent.agent.skills.skillmd import parse_frontmatter, split_frontmatter
from aiagent.agent.tools.base import BUILTIN_TOOLS
from aiagent.agent.tools.profiles import GROUPS, expand_groups

HERE = Path(__file__).resolve().parent
BUILTIN_DIR = HERE / "agents"
NAME_RE = re.compile(r"^[a-z0-9]+([-_][a-z0-9]+)*$")
MAX_BYTES = 256 * 1024
DEFAULT = "general"
INHERIT = "inherit"


class ProfileError(ValueError):
    """A profile that cannot be used; the message is one line naming the file."""


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    description: str
    prompt: str
    source: str  # the file, or "built-in"
    tools: tuple[str, ...] | None = None  # aiagent names; None = the parent's
    disallowed: tuple[str, ...] = ()
    model: str = INHERIT
    mode: str | None = None  # an aiagent approval mode, or a refused one (narrow_mode says)
    warnings: tuple[str, ...] = ()
    #: each name of ``tools`` as written, with the aiagent tools it stands for
    asked: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(slots=True)
class Catalog:
    """The profiles a run may use, those that failed to load, and what to tell the user."""

    profiles: dict[str, Profile] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)  # name (file stem) -> the error
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """``- name: description`` lines for the ``task`` tool's description."""
        return "\n".join(f"- {p.name}: {' '.join(p.description.split())}"
                         for p in sorted(self.profiles.values(), key=lambda p: p.name))

    def get(self, name: str) -> Profile:
        """The profile ``name``; ProfileError (why it failed, or the names known) otherwise."""
        if name in self.profiles:
            return self.profiles[name]
        if name in self.broken:
            raise ProfileError(self.broken[name])
        raise ProfileError(f"no agent profile {name!r}; known: {', '.join(sorted(self.profiles))}")


@cache
def _data() -> dict[str, Any]:
    return tomllib.loads((HERE / "profiles.toml").read_text(encoding="utf-8"))


def folders(*, home: Path | None, config_dir: Path, project: Path | None) -> list[Path]:
    """Where profiles are read, lowest precedence first (``project`` None: not trusted)."""
    found = [BUILTIN_DIR]
    if home is not None:
        found.append(home / ".claude" / "agents")
    found.append(config_dir / "agents")
    if project is not None:
        found += [project / ".claude" / "agents", project / ".agent" / "agents"]
    return found


def load_catalog(places: Iterable[Path], *, untrusted: Path | None = None) -> Catalog:
    """Every profile in ``places`` (later ones override earlier ones by name). ``untrusted``:
    a project folder whose profiles are not read; saying so is a warning."""
    catalog = Catalog()
    for folder in places:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            try:
                profile = load_profile(path, builtin=folder == BUILTIN_DIR)
            except ProfileError as exc:
                catalog.broken[path.stem] = str(exc)
                catalog.profiles.pop(path.stem, None)
                catalog.warnings.append(str(exc))
                continue
            catalog.broken.pop(profile.name, None)
            catalog.profiles[profile.name] = profile
            catalog.warnings += profile.warnings
    if untrusted is not None:
        skipped = [p for d in (".claude", ".agent") for p in (untrusted / d / "agents").glob("*.md")]
        if skipped:
            catalog.warnings.append(
                f"{len(skipped)} agent profile(s) of {untrusted} not loaded: the folder is not "
                "trusted (aiagent trust)")
    return catalog


def load_profile(path: Path, *, builtin: bool = False) -> Profile:
    """One profile file; ProfileError (one line naming the file) when it cannot be used."""
    try:
        raw = path.read_bytes()[:MAX_BYTES]
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc.strerror}") from None
    block, body = split_frontmatter(raw.decode("utf-8", errors="replace"))
    if not block:
        raise ProfileError(f"{path}: no front matter (a '---' block with name and description)")
    try:
        meta = parse_frontmatter(block, path)
    except ManifestError as exc:
        raise ProfileError(str(exc).replace("frontmatter", "front matter")) from None
    name = str(meta.get("name") or path.stem).strip()
    if not NAME_RE.match(name):
        raise ProfileError(f"{path}: name {name!r} is not lowercase letters, digits and hyphens")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ProfileError(f"{path}: description is missing")
    warnings: list[str] = []
    asked = _tools(meta.get("tools"), path, warnings, strict=False)
    denied = _tools(meta.get("disallowedTools"), path, warnings, strict=True) or []
    tools = None if asked is None else tuple(dict.fromkeys(t for _, ts in asked for t in ts))
    disallowed = tuple(t for _, ts in denied for t in ts)
    mode = meta.get("permissionMode", meta.get("approval_mode"))
    return Profile(
        name=name, description=description.strip(), prompt=body.strip(),
        source="built-in" if builtin else str(path), tools=tools, disallowed=tuple(disallowed),
        model=str(meta.get("model") or INHERIT).strip(), mode=None if mode is None else str(mode),
        warnings=tuple(warnings), asked=tuple(asked or ()),
    )


def _tools(value: Any, path: Path, warnings: list[str],
           *, strict: bool) -> list[tuple[str, tuple[str, ...]]] | None:
    """A ``tools`` field: each name with the aiagent tools it stands for. Unknown names:
    dropped with a warning, or (``strict``, for a deny list) the profile is refused."""
    if value is None:
        return None
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise ProfileError(f"{path}: tools must be a comma-separated list of tool names")
    out: list[tuple[str, tuple[str, ...]]] = []
    for item in filter(None, items):
        mapped = map_tool(item)
        if mapped is None and strict:
            raise ProfileError(f"{path}: disallowedTools names {item!r}, which aiagent does not "
                               "know; refusing the profile rather than ignoring a deny")
        if mapped is None:
            warnings.append(f"{path}: unknown tool {item!r} ignored")
        else:
            out.append((item, tuple(mapped)))
    return out


def map_tool(name: str) -> list[str] | None:
    """aiagent's tools for a profile's tool name (its own, a group, a Claude Code name)."""
    bare = name.split("(", 1)[0].strip()  # Claude Code's Bash(git:*) narrows Bash further
    if bare in BUILTIN_TOOLS or bare in GROUPS:
        return expand_groups([bare])
    mapped = _data()["claude_tools"].get(bare)
    return list(mapped) if mapped is not None else None


def narrow_tools(profile: Profile, parent: Collection[str]) -> tuple[list[str], list[str]]:
    """The child's tools: the profile's (or all the parent's), only those the parent has,
    less the disallowed ones; and a warning for each tool the parent lacks."""
    wanted = list(parent) if profile.tools is None else list(profile.tools)
    chosen = [t for t in wanted if t in parent and t not in profile.disallowed]
    missing = [name for name, tools in profile.asked if not any(t in parent for t in tools)]
    notes = [f"agent {profile.name}: tool {t} dropped: the parent agent does not have it"
             for t in missing]
    return chosen, notes


def narrow_mode(profile: Profile, parent: str | None) -> tuple[str | None, list[str]]:
    """The approval mode the child runs in (None: the parent's policy as it is) and a warning
    when the profile asked for more than the parent has."""
    if profile.mode is None or parent is None:
        return None, []
    modes = _data()["modes"]
    wanted = modes["claude"].get(profile.mode, profile.mode)
    order: list[str] = modes["order"]
    if profile.mode in modes["refused"] or wanted not in order:
        return None, [f"agent {profile.name}: permission mode {profile.mode!r} refused; "
                      f"it runs in the parent's mode ({parent})"]
    if parent not in order or order.index(wanted) > order.index(parent):
        return None, [f"agent {profile.name}: permission mode {profile.mode!r} is wider than "
                      f"the parent's ({parent}); it runs in the parent's mode"]
    return (wanted if wanted != parent else None), []


def resolve_model(profile: Profile, provider: str, parent_model: str) -> tuple[str, list[str]]:
    """The model name for the child on ``provider`` (``inherit`` and foreign aliases: the
    parent's model)."""
    wanted = profile.model
    if wanted == INHERIT:
        return parent_model, []
    aliases: dict[str, dict[str, str]] = _data()["model_aliases"]
    if wanted in aliases.get(provider, {}):
        return aliases[provider][wanted], []
    if any(wanted in table for table in aliases.values()):
        return parent_model, [f"agent {profile.name}: model alias {wanted!r} means nothing on "
                              f"{provider}; it uses the parent's model ({parent_model})"]
    return wanted, []
