"""A skill as a portable ``SKILL.md`` (agentskills.io's common ground, seed 000 §2.4):
frontmatter reduced to ``name`` and ``description``, a body that names no engine's tools,
and the list of what could not come along."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from aiagent.agent.skills.distribution.names import NAME_RE
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.skillmd import split_frontmatter

MAX_DESCRIPTION = 1024
FENCE = re.compile(r"^(```|~~~)", re.M)


@cache
def rules() -> dict[str, Any]:
    text = resources.files("aiagent.agent.skills.distribution").joinpath("engines.toml").read_text("utf-8")
    return tomllib.loads(text)


@dataclass(slots=True)
class Portable:
    name: str
    text: str  # the SKILL.md
    files: list[str] = field(default_factory=list)  # relative paths copied beside it
    warnings: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # SKILL.yaml features not exported
    verbatim: bool = False  # the source SKILL.md is already this text (may be linked)


def _segments(body: str) -> list[tuple[bool, str]]:
    """(inside a fenced code block, text) pieces of ``body``."""
    out: list[tuple[bool, str]] = []
    inside, last = False, 0
    for m in FENCE.finditer(body):
        if inside:
            end = body.find("\n", m.end())
            end = len(body) if end < 0 else end
            out.append((True, body[last:end]))
            last = end
        else:
            out.append((False, body[last:m.start()]))
            last = m.start()
        inside = not inside
    out.append((inside, body[last:]))
    return out


def rewrite_body(body: str, warnings: list[str]) -> str:
    """``body`` with engine tool names replaced by neutral words (outside code blocks)."""
    r = rules()
    changed: dict[str, str] = {}
    pieces = []
    for code, text in _segments(body):
        for word, phrase in r["tool_words"].items():
            pattern = re.compile(rf"`{re.escape(word)}(?:\(\))?`|\b{re.escape(word)}\b")
            if code:
                if pattern.search(text):
                    warnings.append(f"names the tool {word!r} in a code block; kept as written")
                continue
            text, n = pattern.subn(phrase, text)
            changed.update({word: phrase} if n else {})
        for word, phrase in ({} if code else r["code_words"]).items():
            text, n = re.subn(rf"`{re.escape(word)}`", phrase, text)
            changed.update({word: phrase} if n else {})
        pieces.append(text)
    warnings += [f"rewrote the tool name {w!r} as {p!r}; check the wording" for w, p in sorted(changed.items())]
    out = "".join(pieces)
    warnings += [f"uses {what}; kept as written (not portable)" for pattern, what in r["not_portable"].items()
                 if re.search(pattern, out, re.M)]
    return out


def _prompt_text(m: Manifest) -> str:
    p = m.prompt
    if p is None:
        return ""
    if p.system_prompt_file:
        try:
            return (m.root / p.system_prompt_file).read_text("utf-8", errors="replace")
        except OSError:
            return p.system_prompt or ""
    return p.system_prompt or ""


def left_out(m: Manifest) -> list[str]:
    """What a SKILL.yaml holds that no SKILL.md can carry."""
    out = [f"tool {t.name} ({m.backend or 'no backend'})" for t in m.tools]
    out += [f"workflow {w.name}" for w in m.workflows]
    if m.implementation is not None and not m.tools and not m.workflows:
        out.append(f"{m.implementation.backend} code (hooks)")
    if m.security_rules is not None:
        out.append("security rules")
    out += [label for label, present in (("triggers", bool(m.triggers)), ("permissions", bool(m.permissions)),
                                          ("dependencies", bool(m.dependencies)), ("config", bool(m.config)))
            if present]
    return out


def _files(m: Manifest) -> list[str]:
    """Files to copy beside SKILL.md: the folder's, minus manifests and hidden files."""
    skip = {"SKILL.md", "skill.md", "SKILL.yaml", "SKILL.yml", "skill.yaml"}
    keep: tuple[str, ...] = ()
    if m.format == "yaml":
        keep = ("scripts/", "references/", "assets/", *(m.prompt.context_files if m.prompt else ()))
    found = []
    for path in sorted(m.root.rglob("*")):
        rel = path.relative_to(m.root).as_posix()
        if any(part.startswith(".") for part in path.relative_to(m.root).parts) or rel in skip:
            continue
        if (path.is_file() or path.is_symlink()) and (m.format == "md" or rel.startswith(keep) or rel in keep):
            found.append(rel)
    return found


def _frontmatter_fields(m: Manifest) -> list[str]:

    if m.format != "md":
        return []
    block, _ = split_frontmatter(m.file.read_text("utf-8", errors="replace"))
    names = re.findall(r"^([A-Za-z][\w-]*)\s*:", block or "", re.M)
    return [n for n in names if n not in ("name", "description")]


def render(m: Manifest) -> Portable:
    """The portable SKILL.md of ``m`` (see the module doc)."""
    import yaml


    out = Portable(m.name, "")
    if not NAME_RE.match(m.name) or len(m.name) > 64:
        raise ValueError(f"name {m.name!r} breaks the agentskills.io rules (lowercase, digits, single hyphens, ≤ 64)")
    description = m.description.strip()
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1].rstrip() + "…"
        out.warnings.append(f"description cut to {MAX_DESCRIPTION} characters")
    body = _prompt_text(m).strip()
    if not body:
        extra = f"; SKILL.yaml only: {', '.join(left_out(m))}" if left_out(m) else ""
        raise ValueError(f"no instructions to export (a SKILL.md is instructions){extra}")
    body = rewrite_body(body, out.warnings)
    dropped = _frontmatter_fields(m)
    if dropped:
        out.warnings.append(f"frontmatter fields not exported: {', '.join(dropped)}")
    out.left_out = left_out(m)
    head = yaml.safe_dump({"name": m.name, "description": description}, sort_keys=False, allow_unicode=True, width=10_000)
    out.text = f"---\n{head}---\n\n{body}\n"
    out.files = _files(m)
    out.verbatim = m.format == "md" and m.root.name == m.name and not out.warnings
    return out
