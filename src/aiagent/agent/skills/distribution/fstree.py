"""Copying skill folders that came from outside, safely and atomically.

A skill folder from a git repository or someone's disk is untrusted: a symlink may point
at ``~/.ssh``, a file may be huge, a FIFO may block a reader. :func:`safe_copy` copies
regular files and symlinks that stay inside the folder, refuses everything else, and caps
size and count. :func:`swap_in` replaces a folder with a staged one by renames, so a
reader sees the old skill or the new one, never half of either.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from aiagent.agent.skills.distribution.names import DistError

MAX_FILE = 10 * 1024 * 1024
MAX_TOTAL = 50 * 1024 * 1024
MAX_FILES = 5000
SKIP = {".git", ".aiagent-install.json"}


def _entries(src: Path) -> list[tuple[Path, os.stat_result]]:
    out: list[tuple[Path, os.stat_result]] = []
    for dirpath, dirnames, filenames in os.walk(src, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
        base = Path(dirpath)
        for name in sorted([*filenames, *[d for d in dirnames if (base / d).is_symlink()]]):
            if name in SKIP:
                continue
            out.append((base / name, os.lstat(base / name)))
            if len(out) > MAX_FILES:
                raise DistError(f"{src}: more than {MAX_FILES} files; refusing to copy")
    return out


def _check_link(path: Path, root: Path) -> None:
    target = os.readlink(path)
    resolved = Path(os.path.realpath(path))
    if os.path.isabs(target) or not resolved.is_relative_to(Path(os.path.realpath(root))):
        raise DistError(f"{path}: a symlink to {target!r}, outside the skill folder; refusing to copy")


def safe_copy(src: Path, dest: Path) -> None:
    """Copy the skill folder ``src`` into the new folder ``dest`` (see the module doc)."""
    if src.is_symlink() or not src.is_dir():
        raise DistError(f"{src}: not a folder")
    total = 0
    dest.mkdir(parents=True)
    for path, st in _entries(src):
        rel = path.relative_to(src)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if stat.S_ISLNK(st.st_mode):
            _check_link(path, src)
            os.symlink(os.readlink(path), target)
        elif stat.S_ISREG(st.st_mode):
            if st.st_size > MAX_FILE:
                raise DistError(f"{path}: {st.st_size // (1024 * 1024)} MB, more than {MAX_FILE // (1024 * 1024)} MB per file; refusing to copy")
            total += st.st_size
            if total > MAX_TOTAL:
                raise DistError(f"{src}: more than {MAX_TOTAL // (1024 * 1024)} MB in all; refusing to copy")
            shutil.copyfile(path, target, follow_symlinks=False)
            os.chmod(target, 0o755 if st.st_mode & 0o111 else 0o644)
        else:
            raise DistError(f"{path}: not a regular file; refusing to copy")


def tree_digest(root: Path) -> str:
    """sha256 over every file's relative path and bytes (symlinks: their target)."""
    h = hashlib.sha256()
    for path, st in _entries(root):
        rel = path.relative_to(root).as_posix()
        h.update(rel.encode() + b"\0")
        if stat.S_ISLNK(st.st_mode):
            h.update(b"L" + os.readlink(path).encode() + b"\0")
        elif stat.S_ISREG(st.st_mode):
            h.update(b"F" + path.read_bytes() + b"\0")
    return "sha256:" + h.hexdigest()


def staging_dir(parent: Path) -> Path:
    """A fresh hidden folder in ``parent`` (same file system, so renames are atomic)."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".staging-", dir=parent))


def swap_in(staged: Path, final: Path) -> None:
    """Put ``staged`` at ``final``, replacing what is there, by renames."""
    old: Path | None = None
    if final.is_symlink() or final.exists():
        old = final.with_name(f".old-{final.name}-{os.getpid()}")
        remove(old)
        os.rename(final, old)
    try:
        os.rename(staged, final)
    except OSError:
        if old is not None:
            os.rename(old, final)
        raise
    if old is not None:
        remove(old)


def remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
