"""Paths a file write always asks for: ``.git`` (at any depth, and any folder that is a git
directory, such as the target of a ``.git`` file), the agent's own project folders
(``.agent``, ``.agents``, ``.claude``), its instruction files (``AGENT.md``, ``AGENTS.md``)
and the user's aiagent config and data folders.

Names are compared case-folded (a case-insensitive file system opens ``.GIT`` as ``.git``),
with the characters HFS+ ignores and the trailing dots and spaces Windows drops removed. A
path is checked as written (``..`` folded lexically) and as resolved (symlinks followed);
either being protected is enough. The names live in ``protected.toml``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

# code points HFS+ ignores in names (git's is_hfs_dotgit list)
_IGNORED = dict.fromkeys(
    [0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)


@dataclass(frozen=True, slots=True)
class Names:
    folders: frozenset[str]
    files: frozenset[str]


@cache
def names() -> Names:
    text = resources.files("aiagent.agent.permissions").joinpath("protected.toml").read_text("utf-8")
    data = tomllib.loads(text)
    folders = {fold(n) for n in (*data["folders"], *data.get("short_names", []))}
    return Names(frozenset(folders), frozenset(fold(n) for n in data["files"]))


def fold(name: str) -> str:
    """A file name as a case-insensitive, forgiving file system may see it."""
    name = name.translate(_IGNORED).casefold()
    name = name.split(":", 1)[0]  # NTFS alternate stream: ".git::$INDEX_ALLOCATION"
    stripped = name.rstrip(". ")
    return stripped if stripped not in ("", ".", "..") else name


def reason(raw: str, workspace: Path, user_dirs: tuple[Path, ...] = ()) -> str | None:
    """Why a write to ``raw`` (absolute, or relative to ``workspace``) must ask, or None."""
    joined = os.path.join(workspace, os.path.expanduser(raw))
    lexical = Path(os.path.normpath(joined))
    real = Path(os.path.realpath(joined))
    for path in dict.fromkeys((lexical, real)):
        found = _by_name(path, workspace) or _in_user_dir(path, user_dirs) or _in_git_dir(path)
        if found:
            return found
    return None


def _by_name(path: Path, workspace: Path) -> str | None:
    """A protected name among the parts of ``path`` below what it shares with the workspace."""
    try:
        common = Path(os.path.commonpath([path, workspace]))
    except ValueError:
        common = Path(path.anchor)
    parts = path.relative_to(common).parts
    table = names()
    for index, part in enumerate(parts):
        folded = fold(part)
        if folded in table.folders:
            return f"{Path(*parts[: index + 1]).as_posix()}/ is protected"
        if index == len(parts) - 1 and folded in table.files:
            return f"{Path(*parts).as_posix()} holds instructions to the agent"
    return None


def _in_user_dir(path: Path, user_dirs: tuple[Path, ...]) -> str | None:
    text = fold_path(path)
    for folder in user_dirs:
        base = fold_path(folder)
        if text == base or text.startswith(base.rstrip("/") + "/"):
            return f"{folder} is aiagent's own config or data folder"
    return None


def fold_path(path: Path) -> str:
    return "/".join(fold(p) if p not in ("/", "") else "" for p in path.parts) or "/"


def _in_git_dir(path: Path) -> str | None:
    """``path`` inside a folder that is a git directory (bare, or the target of a ``.git``
    file), whatever its name."""
    for folder in path.parents:
        if is_git_dir(folder):
            return f"{folder} is a git directory"
    return None


def is_git_dir(folder: Path) -> bool:
    """What git itself checks: a HEAD file, and objects (or a commondir file)."""
    try:
        return (folder / "HEAD").is_file() and (
            (folder / "objects").is_dir() or (folder / "commondir").is_file())
    except OSError:
        return True  # refuse on doubt
