"""Skills in the wiki: pages under ``skill-contributed/`` and extra file classifiers.

Which skills: those active for the project in wiki mode — named with ``--skills``, or
whose triggers match the project (its files or languages; a skill whose only trigger is
``modes: [wiki]`` too) — and usable here: not disabled (``[skills] disabled``, presets,
``aiagent skill disable``), on this platform and agent version. Skills come from the usual
places (built in, the user's, the project's); in an untrusted folder the project's skills
with code are held back as everywhere else. A skill's ``wiki:`` section::

    wiki:
      sections:
        - {title: "Kubernetes architecture", template: wiki/k8s.md}
      classifiers:
        - {kind: build, files: ["*.pbxproj", "deploy/**"]}

Templates are static Markdown read from the skill's own folder (a path that leaves it, a
symlink out of it, a file over 256 KB or not UTF-8 is skipped with a note); skill code
(``analyzer:``) is not run by the static wiki. The text is untrusted: raw HTML is escaped,
images become their alt text, and links keep their target only when it is http(s) or
mailto. Page names are slugs of the titles, always inside ``skill-contributed/``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiagent.agent.skills.config import SkillConfigError, disabled_names, name_list
from aiagent.agent.skills.state import disabled_by_state
from aiagent.engines.wiki.errors import WikiError
from aiagent.engines.wiki.pages import Page, cell, code
from aiagent.infra.config import paths

if TYPE_CHECKING:
    from aiagent.engines.wiki.assemble import Context
    from aiagent.infra.config.settings import Settings

FOLDER = "skill-contributed"
MAX_TEMPLATE_BYTES = 256 * 1024
KINDS = ("build", "config", "doc", "other", "test")


@dataclass(frozen=True, slots=True)
class SkillWiki:
    name: str
    root: Path
    reason: str  # why it is active
    sections: tuple[Any, ...] = ()
    classifiers: tuple[Any, ...] = ()
    has_code: bool = False  # an implementation: its on_before_wiki_section hooks run (hooks.py)


def active_skill_wikis(settings: Settings, root: Path, requested: tuple[str, ...]) -> list[SkillWiki]:
    """The wiki contributions of the skills active for ``root``; unknown or unusable
    ``requested`` names are a WikiError."""
    from aiagent.agent.skills.catalog import SkillCatalog
    from aiagent.agent.skills.triggers import TriggerContext, scan_project, why_active

    catalog = SkillCatalog(*_discover(settings, root))
    for name in requested:
        if name not in catalog.entries:
            raise WikiError(f"--skills: {catalog.missing(name, f'no skill named {name!r}')}")
        why_not = catalog.usable(catalog.entries[name].manifest)
        if why_not:
            raise WikiError(f"--skills: {why_not}")
    trigger = TriggerContext(scan_project(root), mode="wiki", explicit=requested)
    found = []
    for name, entry in sorted(catalog.entries.items()):
        m = entry.manifest
        if not _for_wiki(m, requested) or catalog.usable(m) is not None:
            continue
        reason = why_active(m, trigger, startup=True)
        if reason:
            found.append(SkillWiki(name, m.root, reason, _items(m.wiki, "sections"), _items(m.wiki, "classifiers"),
                                   m.implementation is not None))
    return found


def _for_wiki(m: Any, requested: tuple[str, ...]) -> bool:
    """A ``wiki:`` section, or code meant for the wiki (named, or triggered in wiki mode)."""
    return bool(m.wiki) or (m.implementation is not None and (m.name in requested or "wiki" in m.triggers.modes))


def _items(wiki: dict[str, Any], key: str) -> tuple[Any, ...]:
    value = wiki.get(key)
    return tuple(value) if isinstance(value, list) else ()


def _discover(settings: Settings, root: Path) -> tuple[Any, set[str]]:
    """What skills exist (held back as usual in an untrusted folder) and which are disabled."""
    from aiagent.agent.skills.config import skills_table
    from aiagent.agent.skills.factory import trust_gate
    from aiagent.agent.skills.loader import default_sources, discover

    table = skills_table(settings)
    home = Path(settings.env.get("HOME") or Path.home())
    config_dir = paths.config_dir(settings.env)
    trust = settings.trust
    trusted = trust is not None and trust.trusted
    admit = None if trusted else trust_gate(trust, root, name_list(table.get("explicit")), settings.workspace)
    discovery = discover(default_sources(settings.workspace, root, config_dir, home, table), admit)
    try:
        disabled = disabled_names(table, discovery.skills)
    except SkillConfigError as exc:
        raise WikiError(str(exc)) from None
    return discovery, disabled_by_state(disabled, root, config_dir, trusted=trusted)


# ---- classifiers ---------------------------------------------------------------------


def classifiers(skills: tuple[SkillWiki, ...]) -> list[tuple[Any, str]]:
    """(gitignore-style spec, kind) for every well-formed classifier of ``skills``."""
    import pathspec

    out = []
    for skill in skills:
        for item in skill.classifiers:
            if not isinstance(item, dict) or item.get("kind") not in KINDS:
                continue
            files = [f for f in item.get("files") or [] if isinstance(f, str)]
            if files:
                out.append((pathspec.GitIgnoreSpec.from_lines(files), str(item["kind"])))
    return out


# ---- pages ---------------------------------------------------------------------------


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].strip("-") or "page"


def skill_pages(skills: tuple[SkillWiki, ...], ctx: Context | None = None) -> tuple[list[Page], list[str]]:
    """The pages, and one line per section that was skipped."""
    values = placeholders(ctx) if ctx is not None else {}
    pages: list[Page] = []
    problems: list[str] = []
    used: set[str] = set()
    for skill in skills:
        for index, section in enumerate(skill.sections):
            try:
                title, text = _section(skill, section, index)
            except WikiError as exc:
                problems.append(str(exc))
                continue
            path = _unique(slug(title), skill.name, used)
            body = (f"# {cell(title)}\n\n_Contributed by the skill {code(skill.name)} ({cell(skill.reason)})._\n\n"
                    + inert_markdown(_without_title(fill(text, values), title)))
            pages.append(Page(path, title, body.rstrip() + "\n"))
    return pages, problems


PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")


def placeholders(ctx: Context) -> dict[str, str]:
    """The values a template's ``{{ name }}`` placeholders take (plain text, made inert with
    the rest of the template)."""
    from aiagent.engines.wiki.assemble import title

    model = ctx.model
    return {"project_name": title(ctx), "module_count": str(len(ctx.modules)),
            "file_count": str(len(model.files)), "line_count": str(model.total_lines),
            "languages": ", ".join(sorted({f.language for f in model.files.values()}))}


def fill(text: str, values: dict[str, str]) -> str:
    """``{{ name }}`` replaced by its value; unknown names stay as written (no code runs)."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _unique(base: str, skill: str, used: set[str]) -> str:
    name, n = base, 2
    if f"{FOLDER}/{name}.md" in used:
        name = slug(f"{skill}-{base}")
    while f"{FOLDER}/{name}.md" in used:
        name, n = f"{slug(f'{skill}-{base}')}-{n}", n + 1
    used.add(f"{FOLDER}/{name}.md")
    return f"{FOLDER}/{name}.md"


def _section(skill: SkillWiki, section: Any, index: int) -> tuple[str, str]:
    where = f"skill {skill.name}: wiki.sections[{index}]"
    if not isinstance(section, dict) or not isinstance(section.get("title"), str) or not section["title"].strip():
        raise WikiError(f"{where}: needs a title")
    template = section.get("template")
    if not isinstance(template, str) or not template:
        raise WikiError(f"{where}: needs a template (a Markdown file in the skill's folder)")
    return " ".join(section["title"].split())[:120], _read_template(skill, template, where)


def _read_template(skill: SkillWiki, template: str, where: str) -> str:
    base = Path(os.path.realpath(skill.root))
    path = Path(os.path.realpath(base / template))
    if os.path.isabs(template) or not path.is_relative_to(base):
        raise WikiError(f"{where}: template {template!r} is outside the skill's folder; skipped")
    try:
        if not path.is_file():
            raise WikiError(f"{where}: template {template!r} is not a file; skipped")
        if path.stat().st_size > MAX_TEMPLATE_BYTES:
            raise WikiError(f"{where}: template {template!r} is over {MAX_TEMPLATE_BYTES // 1024} KB; skipped")
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise WikiError(f"{where}: template {template!r} is not UTF-8; skipped") from None
    except OSError as exc:
        raise WikiError(f"{where}: template {template!r}: {exc.strerror or exc}; skipped") from None


def _without_title(text: str, title: str) -> str:
    lines = text.lstrip("\ufeff").splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip("\n") + "\n"


# ---- untrusted Markdown --------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
LINK = re.compile(r"(!?)\[((?:\\.|[^\]\\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFDEF = re.compile(r"^( {0,3})\[([^\]]+)\]:\s*<?(\S*?)>?(\s.*)?$")
SAFE_SCHEMES = ("http://", "https://", "mailto:")


def inert_markdown(text: str) -> str:
    """Markdown from a skill with no raw HTML, no images and only http(s)/mailto links;
    code blocks and code spans are kept as they are (they render as text)."""
    out: list[str] = []
    fence = ""
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            out.append(line)
        elif opened:
            fence = opened.group(1)
            out.append(line)
        else:
            out.append(_inert_line(line))
    if fence:
        out.append(fence)  # close a fence the template left open
    return "\n".join(out) + "\n"


def _inert_line(line: str) -> str:
    ref = REFDEF.match(line)
    if ref and not ref.group(3).lower().startswith(SAFE_SCHEMES):
        return "\\" + _inert_text(line.lstrip())
    parts = SPAN.split(line)
    # SPAN.split gives text, fence, code, text, fence, code, ...
    out = []
    for i in range(0, len(parts), 3):
        out.append(_inert_text(parts[i]))
        if i + 2 < len(parts):
            out.append(f"{parts[i + 1]}{parts[i + 2]}{parts[i + 1]}")
    return "".join(out)


def _inert_text(text: str) -> str:
    def link(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        if bang:
            return label or "image"
        if target.lower().startswith(SAFE_SCHEMES) and '"' not in target:
            return f"[{label}]({target})"
        return label

    return LINK.sub(link, text.replace("<", "&lt;"))
