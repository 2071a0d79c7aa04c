"""``@path`` mentions: find files to complete, and attach mentioned files to a prompt.

The file list comes from ``git ls-files`` in a repository (so ignored files stay out),
else from a bounded walk that skips hidden and bulky folders.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from aiagent.infra.process.git import GitError, prepare, run

MAX_FILES = 20000
ATTACH_LIMIT = 256 * 1024
SKIP_DIRS = frozenset({"node_modules", "__pycache__", ".venv", "venv", "dist", "build", "target"})
MENTION = re.compile(r"(?<![\w@])@((?:[^\s\\]|\\ )+)")


def list_files(root: Path, limit: int = MAX_FILES) -> list[str]:
    """Workspace files as posix paths relative to ``root``."""

    try:
        done = run(prepare(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"), 5)
        if done.returncode == 0:
            names = [n for n in done.stdout.decode(errors="replace").split("\0") if n]
            return sorted(names)[:limit]
    except (OSError, GitError, subprocess.TimeoutExpired):
        pass
    return _walk(root, limit)


def _walk(root: Path, limit: int) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        rel = Path(folder).relative_to(root)
        for name in sorted(files):
            found.append((rel / name).as_posix())
            if len(found) >= limit:
                return found
    return found


def with_dirs(files: list[str]) -> list[str]:
    """The files, preceded by every folder that holds one (``src/``, ``src/pkg/``)."""
    dirs: set[str] = set()
    for name in files:
        parts = name.split("/")[:-1]
        dirs.update("/".join(parts[: i + 1]) + "/" for i in range(len(parts)))
    return sorted(dirs) + files


def rank(candidates: list[str], fragment: str, limit: int = 50) -> list[str]:
    """Paths matching ``fragment``: by prefix when it holds a ``/``, else by name."""
    frag = fragment.lower()
    if not frag:
        return [c for c in candidates if c.count("/") <= (1 if c.endswith("/") else 0)][:limit]
    scored: list[tuple[int, int, str]] = []
    for path in candidates:
        low = path.lower()
        name = low.rstrip("/").rsplit("/", 1)[-1]
        if "/" in frag:
            score = 0 if low.startswith(frag) else (2 if frag in low else -1)
        elif name.startswith(frag):
            score = 0
        elif frag in name:
            score = 1
        elif frag in low:
            score = 2
        else:
            score = -1
        if score >= 0:
            scored.append((score, len(path), path))
    return [p for _, _, p in sorted(scored)[:limit]]


@dataclass(frozen=True, slots=True)
class Attachment:
    path: str
    lines: int
    note: str = ""


def attach_mentions(text: str, workspace: Path) -> tuple[str, list[Attachment]]:
    """The prompt with the mentioned files' contents appended, and what was attached."""
    blocks: list[str] = []
    attached: list[Attachment] = []
    seen: set[str] = set()
    for match in MENTION.finditer(text):
        raw = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        path = (workspace / raw).resolve()
        if raw in seen or not path.exists() or not path.is_relative_to(workspace.resolve()):
            continue
        seen.add(raw)
        block, item = _file_block(path, raw) if path.is_file() else _dir_block(path, raw)
        blocks.append(block)
        attached.append(item)
    if not blocks:
        return text, []
    return text + "\n\n" + "\n\n".join(blocks), attached


def _file_block(path: Path, shown: str) -> tuple[str, Attachment]:
    data = path.read_bytes()[: ATTACH_LIMIT + 1]
    if b"\0" in data[:8192]:
        return (f'<file path="{shown}">(binary file, not attached)</file>',
                Attachment(shown, 0, "binary, not attached"))
    text = data[:ATTACH_LIMIT].decode("utf-8", errors="replace")
    note = f"first {ATTACH_LIMIT // 1024} KB" if len(data) > ATTACH_LIMIT else ""
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return f'<file path="{shown}">\n{text.rstrip()}\n</file>', Attachment(shown, lines, note)


def _dir_block(path: Path, shown: str) -> tuple[str, Attachment]:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())[:500]
    listing = "\n".join(names)
    return (f'<directory path="{shown}">\n{listing}\n</directory>',
            Attachment(shown, len(names), "directory listing"))
