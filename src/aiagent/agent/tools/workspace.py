"""Path resolution and scope checks for tools.

Every path a tool touches goes through :func:`resolve_path`: relative paths are taken from
the workspace root, symlinks are resolved, and the final location must lie inside the
workspace unless ``ctx.allow_outside_workspace`` (or ``[tools] allow_outside_workspace``)
says otherwise. Writers then open the resolved path with :func:`open_parent` (a no-follow
walk from a directory handle), so a check cannot be raced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from aiagent.contracts.tools import ToolError

if TYPE_CHECKING:
    from aiagent.contracts.tools import ToolContext


class OutsideWorkspaceError(ToolError):
    """The path escapes the workspace (directly or through a symlink)."""


def workspace_root(ctx: ToolContext) -> Path:
    """The workspace root, absolute and with symlinks resolved."""
    return Path(os.path.realpath(ctx.workspace))


def outside_allowed(ctx: ToolContext) -> bool:
    return bool(ctx.allow_outside_workspace or ctx.settings.get("allow_outside_workspace"))


def resolve_path(
    ctx: ToolContext, raw: str | os.PathLike[str], *, field: str = "path", reading: bool = False
) -> Path:
    """Resolve ``raw`` against the workspace and refuse it if it leaves the workspace.

    The returned path is absolute with every symlink resolved (the real file that would
    be read or written). ``field`` names the argument in error messages. With
    ``reading``, the folders listed in ``ctx.state["tools.readable_roots"]`` (such as the
    shell's output logs) are allowed too.
    """
    text = os.fspath(raw)
    if not text.strip():
        raise ToolError(f"{field} must not be empty")
    if "\x00" in text:
        raise ToolError(f"{field} contains a NUL byte")
    root = workspace_root(ctx)
    candidate = Path(os.path.expanduser(text))
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        real = Path(os.path.realpath(candidate))
    except OSError as err:  # a symlink on the way changed while it was being read
        raise ToolError(f"cannot resolve {field} {text}: {err.strerror or err}") from None
    if not outside_allowed(ctx) and not is_inside(real, root) and not _readable(ctx, real, reading):
        raise OutsideWorkspaceError(_refusal(text, real, candidate, root))
    return real


def _readable(ctx: ToolContext, real: Path, reading: bool) -> bool:
    if not reading:
        return False
    roots = ctx.state.get("tools.readable_roots", [])
    return any(is_inside(real, Path(os.path.realpath(r))) for r in roots)


def is_inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _refusal(text: str, real: Path, candidate: Path, root: Path) -> str:
    via = ""
    if Path(os.path.normpath(candidate)) != real:
        via = f" (it resolves to {real} through a symlink)"
    return (
        f"access denied: {text} is outside the workspace {root}{via}; "
        "set [tools] allow_outside_workspace = true to allow it"
    )


def display_path(ctx: ToolContext, path: Path) -> str:
    """``path`` relative to the workspace when inside it, else absolute."""
    root = workspace_root(ctx)
    if is_inside(path, root) and path != root:
        return str(path.relative_to(root))
    return str(path)


# -- opening for a write, without races --------------------------------------------------
#
# A path checked by resolve_path could be changed before it is used: a parent folder swapped
# for a symlink to outside the workspace. Writers therefore never use the path itself. They
# walk the *resolved* path (no symlinks left in it) from a directory handle of the walk root,
# one folder at a time with O_NOFOLLOW, and create, replace and delete relative to the handle
# of the last folder. A symlink met on that walk can only be a swap made after the check, so
# the write is refused: it fails closed. Symlinks inside the workspace that point inside it
# keep working, because resolve_path has already followed them.

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW


@dataclass(slots=True)
class Parent:
    """An open handle of the folder holding ``path``, and the file's name in it."""

    fd: int
    name: str
    path: Path


class ChangedUnderfootError(OutsideWorkspaceError):
    """A folder on the way became a symlink (or a file) after the path was checked."""


def walk_root(ctx: ToolContext, path: Path) -> Path:
    """Where the no-follow walk to ``path`` starts: the workspace, or ``/`` when allowed."""
    root = workspace_root(ctx)
    if is_inside(path, root):
        return root
    if outside_allowed(ctx):
        return Path(path.anchor or "/")
    raise OutsideWorkspaceError(_refusal(str(path), path, path, root))


@contextmanager
def open_parent(ctx: ToolContext, path: Path, *, create: bool = False) -> Iterator[Parent]:
    """Open the folder holding the resolved ``path`` by a no-follow walk (see above).

    With ``create``, missing folders are made on the way; without it a missing folder
    raises FileNotFoundError. The handle is closed on leaving the block.
    """
    root = walk_root(ctx, path)
    parts = path.relative_to(root).parts
    if not parts:
        raise ToolError(f"{path} is a directory, not a file")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for index, part in enumerate(parts[:-1]):
            child = _open_dir(fd, part, create, Path(root, *parts[: index + 1]))
            os.close(fd)
            fd = child
        yield Parent(fd, parts[-1], path)
    finally:
        os.close(fd)


def _open_dir(fd: int, name: str, create: bool, shown: Path) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as err:
        _refuse_walk(fd, name, shown, err)
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=fd)
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError as err:
        _refuse_walk(fd, name, shown, err)


def _refuse_walk(fd: int, name: str, shown: Path, err: OSError) -> NoReturn:
    if err.errno not in (errno.ELOOP, errno.ENOTDIR):
        raise ToolError(f"cannot open folder {shown}: {err.strerror or err}") from None
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        is_link = True
    if is_link:
        raise ChangedUnderfootError(
            f"refused: {shown} became a symlink after the path was checked; nothing was written"
        ) from None
    raise ToolError(f"cannot use {shown} as a folder: a file is in the way") from None
