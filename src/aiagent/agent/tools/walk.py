"""A pure-Python file walk with ripgrep's default filters (the fallback when ``rg`` is
unavailable): a ``--glob`` selects files even if they are ignored (as rg does); hidden files and folders are skipped, symlinks are not followed, ``.ignore``
and ``.rgignore`` files apply everywhere and ``.gitignore`` files (plus
``.git/info/exclude``) apply inside a git repository; deeper files override shallower ones.

Folders and files that cannot be read (``/proc/1/fdinfo``, a folder of another user) are
skipped and counted, never an error. A :class:`Walk` can be bounded in files and seconds
and stopped from another thread (:class:`WalkLimits`); it goes breadth first, so a walk
cut short still covers the top of every folder, and it says why it stopped.
"""

from __future__ import annotations

import os
import re
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from time import monotonic

import pathspec

from aiagent.agent.tools.textio import looks_binary

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
_BRACES = re.compile(r"\{([^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` -> ``["*.ts", "*.tsx"]`` (gitignore syntax has no braces)."""
    match = _BRACES.search(pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [x for alt in match.group(1).split(",") for x in expand_braces(head + alt + tail)]


def glob_spec(pattern: str) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(expand_braces(pattern))


def in_git_repo(path: Path) -> bool:
    return any(_exists(p / ".git") for p in (path, *path.parents))


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # an unreadable folder on the way: as if absent
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


Rules = list[tuple[Path, pathspec.GitIgnoreSpec]]


def _rules_for(directory: Path, git: bool) -> Rules:
    rules: Rules = []
    names = IGNORE_FILES if git else IGNORE_FILES[1:]
    files = [directory / ".git" / "info" / "exclude"] if git else []
    files += [directory / name for name in names]
    for file in files:
        spec = _spec(file) if _is_file(file) else None
        if spec is not None:
            rules.append((directory, spec))
    return rules


def _spec(file: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:  # unreadable: it cannot be honoured, and it is no reason to stop
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


def ignored(path: Path, is_dir: bool, rules: Rules) -> bool:
    for base, spec in reversed(rules):
        rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        verdict = spec.check_file(rel).include
        if verdict is not None:
            return bool(verdict)
    return False


def _parent_rules(root: Path, git: bool) -> Rules:
    rules: Rules = []
    chain = [p for p in reversed(root.parents)] if git else []
    for directory in chain:
        rules += _rules_for(directory, git)
    return rules


@dataclass(frozen=True, slots=True)
class WalkLimits:
    """Bounds of a walk: files yielded and seconds (0: no bound), and an event another
    thread sets to stop it (a cancelled run)."""

    max_files: int = 0
    max_seconds: float = 0.0
    stop: threading.Event | None = None


class Walk:
    """The files under ``root`` (or ``root`` itself) passing the filters and ``glob``.

    Iterate it once; then ``stopped`` says why it ended early (``"files"``, ``"time"``,
    ``"stopped"``; ``""`` when it saw everything), :meth:`why` says it in words, and
    ``unreadable`` counts the folders it could not list.
    """

    def __init__(self, root: Path, glob: str | None = None, limits: WalkLimits | None = None) -> None:
        self.root, self.glob = root, glob
        self.limits = limits or WalkLimits()
        self.files = 0
        self.unreadable = 0
        self.stopped = ""

    def __iter__(self) -> Iterator[Path]:
        if _is_file(self.root):
            self.files = 1
            yield self.root
            return
        self._deadline = monotonic() + self.limits.max_seconds if self.limits.max_seconds else 0.0
        git = in_git_repo(self.root)
        match = glob_spec(self.glob) if self.glob else None
        queue = deque([(self.root, _parent_rules(self.root, git) + _rules_for(self.root, git))])
        while queue and not self._over():
            directory, rules = queue.popleft()
            for entry in self._entries(directory):
                if self._over():
                    return
                path = self._visit(entry, rules, match, git, queue)
                if path is None:
                    continue
                if self.limits.max_files and self.files >= self.limits.max_files:
                    self.stopped = "files"  # one file more than the bound: the walk is partial
                    return
                self.files += 1
                yield path

    def _entries(self, directory: Path) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(directory) as found:
                return sorted(found, key=lambda e: e.name)
        except OSError:
            self.unreadable += 1
            return []

    def _visit(self, entry: os.DirEntry[str], rules: Rules, match: pathspec.GitIgnoreSpec | None,
               git: bool, queue: deque[tuple[Path, Rules]]) -> Path | None:
        """The entry's path when it is a file to yield; a folder to walk joins ``queue``."""
        try:
            if entry.name.startswith(".") or entry.is_symlink():
                return None
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            return None
        path = Path(entry.path)
        if is_dir:
            if not ignored(path, True, rules):
                queue.append((path, rules + _rules_for(path, git)))
            return None
        if match is not None:
            # As with rg --glob: a file the glob names is searched even if ignored.
            return path if match.match_file(path.relative_to(self.root).as_posix()) else None
        return None if ignored(path, False, rules) else path

    def _over(self) -> bool:
        limits = self.limits
        if limits.stop is not None and limits.stop.is_set():
            self.stopped = "stopped"
        elif self._deadline and monotonic() >= self._deadline:
            self.stopped = "time"
        return bool(self.stopped)

    def why(self) -> str:
        """Why the walk stopped early, in words ("" when it saw everything)."""
        return {
            "files": f"it stopped after {self.limits.max_files} files",
            "time": f"it stopped after {self.limits.max_seconds:g} s",
            "stopped": "it was stopped",
        }.get(self.stopped, "")


def walk_files(root: Path, glob: str | None = None, limits: WalkLimits | None = None) -> Iterator[Path]:
    """Files under ``root`` (or ``root`` itself) passing the filters and ``glob``."""
    return iter(Walk(root, glob, limits))


def read_text(path: Path) -> str | None:
    """The file's text for searching; None for binary files (ripgrep skips them too)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data):
        return None
    return data.decode("utf-8", "replace")
