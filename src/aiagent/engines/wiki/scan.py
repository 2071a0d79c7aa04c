"""Stage 1: the files of the project, ignore rules and the steering file honoured.

Every file is classified once: ``source`` (a tree-sitter grammar parses it), ``build``,
``config``, ``doc`` or ``other``; source files that look like tests are marked as tests.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.engines.wiki.errors import WikiError
from aiagent.engines.wiki.steering import Steering
from aiagent.infra.syntax.languages import classify
from aiagent.infra.syntax.treesitter import GRAMMARS, available

MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class ScannedFile:
    rel: str  # POSIX path relative to the project root
    path: Path
    kind: str  # source | build | config | doc | other
    language: str  # the grammar for source files, else the classify() kind
    is_test: bool
    size: int


@dataclass(frozen=True, slots=True)
class Scan:
    root: Path
    files: tuple[ScannedFile, ...]

    def of_kind(self, kind: str) -> list[ScannedFile]:
        return [f for f in self.files if f.kind == kind]


@cache
def file_kinds() -> dict[str, Any]:
    data = resources.files("aiagent.engines.wiki").joinpath("filekinds.toml").read_bytes()
    return tomllib.loads(data.decode())


def scan(root: Path, steering: Steering, skip: tuple[Path, ...] = (),
         classifiers: list[tuple[Any, str]] | None = None) -> Scan:
    """The project's files under ``root``; ``skip`` are folders left out (the output);
    ``classifiers`` are (gitignore-style spec, kind) pairs from skills, tried first."""
    import pathspec

    from aiagent.agent.tools.walk import walk_files

    if not root.is_dir():
        raise WikiError(f"{root}: not a folder")
    include = pathspec.GitIgnoreSpec.from_lines(steering.include) if steering.include else None
    exclude = pathspec.GitIgnoreSpec.from_lines(steering.exclude)
    tests = pathspec.GitIgnoreSpec.from_lines(file_kinds()["tests"])
    skipped = [s.resolve() for s in skip]
    files = []
    for path in sorted(walk_files(root)):
        rel = path.relative_to(root).as_posix()
        if any(path.resolve().is_relative_to(s) for s in skipped):
            continue
        if (include is not None and not include.match_file(rel)) or exclude.match_file(rel):
            continue
        if not _regular(path):
            continue  # a named pipe or device would block the read: never opened
        files.append(_classify(path, rel, tests, classifiers or []))
    if not any(f.kind == "source" for f in files):
        raise WikiError(f"{root}: not a code folder (no source file in a language the wiki parses)")
    return Scan(root, tuple(files))


def _regular(path: Path) -> bool:
    import stat

    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True  # reported as unreadable by _classify


def _classify(path: Path, rel: str, tests: Any, extra: list[tuple[Any, str]]) -> ScannedFile:

    try:
        size = path.stat().st_size
    except OSError as exc:
        raise WikiError(f"{rel}: cannot read: {exc.strerror or exc}") from None
    kinds = file_kinds()
    language = classify(rel)
    if path.name in kinds["build"]:
        kind = "build"
    elif language in GRAMMARS and available(language) and size <= MAX_FILE_BYTES:
        kind = "source"
    elif path.name in kinds["docs"] or language == "markdown":
        kind = "doc"
    elif language in kinds["config"]:
        kind = "config"
    else:
        kind = "other"
    chosen = next((k for spec, k in extra if spec.match_file(rel)), "")
    is_test = kind == "source" and (chosen == "test" or bool(tests.match_file(rel)))
    if chosen and chosen != "test" and kind != "source":
        kind = chosen  # a skill may name build/config/doc files; source stays source
    return ScannedFile(rel, path, kind, language, is_test, size)
