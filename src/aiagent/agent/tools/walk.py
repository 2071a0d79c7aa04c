"""A pure-Python file walk with ripgrep's default filters (the fallback when ``rg`` is
unavailable): a ``--glob`` selects files even if they are ignored (as rg does); hidden files and folders are skipped, symlinks are not followed, ``.ignore``
and ``.rgignore`` files apply everywhere and ``.gitignore`` files (plus
``.git/info/exclude``) apply inside a git repository; deeper files override shallower ones.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

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
    return any((p / ".git").exists() for p in (path, *path.parents))


Rules = list[tuple[Path, pathspec.GitIgnoreSpec]]


def _rules_for(directory: Path, git: bool) -> Rules:
    rules: Rules = []
    names = IGNORE_FILES if git else IGNORE_FILES[1:]
    if git and (directory / ".git" / "info" / "exclude").is_file():
        rules.append((directory, _spec(directory / ".git" / "info" / "exclude")))
    for name in names:
        file = directory / name
        if file.is_file():
            rules.append((directory, _spec(file)))
    return rules


def _spec(file: Path) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(file.read_text(encoding="utf-8", errors="replace").splitlines())


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


def walk_files(root: Path, glob: str | None = None) -> Iterator[Path]:
    """Files under ``root`` (or ``root`` itself) passing the filters and ``glob``."""
    if root.is_file():
        yield root
        return
    git = in_git_repo(root)
    match = glob_spec(glob) if glob else None
    stack: list[tuple[Path, Rules]] = [(root, _parent_rules(root, git) + _rules_for(root, git))]
    while stack:
        directory, rules = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if not ignored(path, True, rules):
                    stack.append((path, rules + _rules_for(path, git)))
            elif match is not None:
                # As with rg --glob: a file the glob names is searched even if ignored.
                if match.match_file(path.relative_to(root).as_posix()):
                    yield path
            elif not ignored(path, False, rules):
                yield path


def read_text(path: Path) -> str | None:
    """The file's text for searching; None for binary files (ripgrep skips them too)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data):
        return None
    return data.decode("utf-8", "replace")
