"""Paths a client names must stay inside the folder the server was started in.

A path is taken relative to that root (an absolute one as it is), then resolved with every
symbolic link followed; it is refused when the result is outside the root. So ``../x``,
``/etc``, and a link inside the project that points out of it are all refused. (A link
swapped in between this check and its use is not caught: the client would need write
access to the project for that.)
"""

from __future__ import annotations

import os
from pathlib import Path


class PathRefused(ValueError):
    """A path outside the server's root, or not a usable path."""


def inside(root: Path, raw: str, *, what: str = "path", must_exist: bool = True,
           kind: str = "") -> Path:
    """``raw`` resolved under ``root``; PathRefused when it leaves it. ``kind``: "dir" or
    "file" to require one."""
    if not raw or "\x00" in raw:
        raise PathRefused(f"{what}: not a path")
    base = root.resolve()
    given = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
    resolved = (given if given.is_absolute() else base / given).resolve()
    if not resolved.is_relative_to(base):
        raise PathRefused(f"{what} {raw!r} is outside the server's folder {base} "
                          "(only paths inside it are allowed)")
    if must_exist and not resolved.exists():
        raise PathRefused(f"{what} {raw!r}: no such file or folder")
    if kind == "dir" and resolved.exists() and not resolved.is_dir():
        raise PathRefused(f"{what} {raw!r}: not a folder")
    if kind == "file" and must_exist and not resolved.is_file():
        raise PathRefused(f"{what} {raw!r}: not a file")
    return resolved
