"""Trigger evaluation (spec §4.7): which skills should activate on their own.

:class:`ProjectFacts` is gathered once per run: the project's files (honouring
``.gitignore``, bounded), the languages seen and the build system. Keywords are matched
against each user turn. Explicit requests (``--skills``, ``/skill``, AGENT.md) always win.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.skills.manifest import Manifest, Triggers

MAX_FILES = 20000
MAX_DEPTH = 12
ALWAYS_SKIPPED = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"}


@cache
def _language_data() -> dict[str, Any]:
    text = resources.files("aiagent.agent.skills").joinpath("data/languages.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def language_of(rel: str) -> str:
    data = _language_data()
    name = rel.rsplit("/", 1)[-1]
    if name in data["names"] or name.startswith("Dockerfile"):
        return str(data["names"].get(name, "dockerfile"))
    suffix = os.path.splitext(name)[1].lower()
    return str(data["extensions"].get(suffix, ""))


@dataclass(slots=True)
class ProjectFacts:
    root: Path
    files: list[str] = field(default_factory=list)  # POSIX paths relative to root
    languages: list[str] = field(default_factory=list)  # most files first
    build_system: str = ""
    truncated: bool = False

    @property
    def primary_language(self) -> str:
        return self.languages[0] if self.languages else ""


def _ignore_spec(folder: Path, rel: str) -> Any | None:
    import pathspec

    path = folder / ".gitignore"
    try:  # an unreadable folder (/proc/1/fdinfo) answers EACCES even to is_file()
        if not path.is_file():
            return None
        lines = path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return (rel, pathspec.GitIgnoreSpec.from_lines(lines))


def _ignored(specs: list[Any], rel: str, is_dir: bool) -> bool:
    for base, spec in specs:
        sub = rel[len(base) + 1:] if base else rel
        if base and not rel.startswith(base + "/"):
            continue
        if spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def scan_project(root: Path, max_files: int = MAX_FILES) -> ProjectFacts:
    """List the project's files (``.gitignore`` honoured) and what they say about it."""
    facts = ProjectFacts(root)
    specs: list[Any] = []
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    while stack and not facts.truncated:
        folder, rel, depth = stack.pop()
        spec = _ignore_spec(folder, rel)
        if spec is not None:
            specs.append(spec)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            child = f"{rel}/{entry.name}" if rel else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if entry.name in ALWAYS_SKIPPED or _ignored(specs, child, is_dir):
                continue
            if is_dir:
                if depth < MAX_DEPTH:
                    stack.append((Path(entry.path), child, depth + 1))
                continue
            facts.files.append(child)
            if len(facts.files) >= max_files:
                facts.truncated = True
                break
    _summarise(facts)
    return facts


def _summarise(facts: ProjectFacts) -> None:
    counts = Counter(lang for f in facts.files if (lang := language_of(f)))
    facts.languages = [lang for lang, _ in counts.most_common()]
    systems = _language_data()["build_systems"]
    top = {f for f in facts.files if "/" not in f}
    facts.build_system = next((systems[n] for n in systems if n in top), "")


def files_match(patterns: Iterable[str], files: Iterable[str]) -> str | None:
    """The first project file matching any gitignore-style pattern (``*.sql``, ``k8s/``)."""
    import pathspec

    patterns = list(patterns)
    if not patterns:
        return None
    spec = pathspec.PathSpec.from_lines("gitignore", patterns)
    return next((f for f in files if spec.match_file(f)), None)


def keyword_match(keywords: Iterable[str], text: str) -> str | None:
    """The first keyword found in ``text`` as a whole word or phrase (case-insensitive)."""
    lowered = text.lower()
    for keyword in keywords:
        word = keyword.strip().lower()
        # a plain substring test first: a turn's text can be a whole diff (code review)
        if word and word in lowered \
                and re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lowered):
            return keyword
    return None


@dataclass(slots=True)
class TriggerContext:
    facts: ProjectFacts | None = None
    mode: str = "headless"
    explicit: tuple[str, ...] = ()
    user_message: str = ""


def why_active(m: Manifest, ctx: TriggerContext, *, startup: bool) -> str | None:
    """Why ``m`` should activate now (a short reason), or None.

    At start-up, explicit names, files and languages count; on each user turn, keywords.
    A skill whose ``modes`` do not include the current mode never auto-activates; modes
    alone (no other trigger) activate it in those modes.
    """
    if m.name in ctx.explicit:
        return "requested"
    t: Triggers = m.triggers
    if t.modes and ctx.mode not in t.modes:
        return None
    if startup:
        facts = ctx.facts
        if facts is not None:
            hit = files_match(t.files, facts.files)
            if hit:
                return f"file {hit}"
            lang = next((lang for lang in t.languages if lang in facts.languages), None)
            if lang:
                return f"language {lang}"
        if t.modes and not (t.files or t.languages or t.keywords):
            return f"mode {ctx.mode}"
        return None
    word = keyword_match(t.keywords, ctx.user_message)
    return f"keyword {word!r}" if word else None


@dataclass(slots=True)
class SessionTriggers:
    """What makes skills activate on their own in one session: the mode, the skills asked
    for by name (``--skills``, AGENT.md), and the project's facts once scanned."""

    mode: str = "headless"
    explicit: tuple[str, ...] = ()
    facts: ProjectFacts | None = None
    started: bool = False  # the session's start-up triggers ran

    def begin(self, facts: ProjectFacts | None) -> bool:
        """Take the project's facts for the start-up triggers; True the first time."""
        first, self.started, self.facts = not self.started, True, facts
        return first

    def wanted(self, manifests: Iterable[Manifest], user_message: str = "", *,
               startup: bool) -> list[tuple[str, str]]:
        """(name, why) of each of ``manifests`` that should activate now."""
        ctx = TriggerContext(self.facts, self.mode, self.explicit, user_message)
        return [(m.name, why) for m in manifests if (why := why_active(m, ctx, startup=startup))]
