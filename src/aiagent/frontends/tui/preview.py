"""What an edit would do, shown before the user approves it.

For ``write_file`` and ``edit`` the preview is a unified diff of the file as it is now
against the file as the call would leave it; for ``apply_patch`` it is the patch itself.
A preview is advisory: the tool re-reads and checks the file when it runs.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

PREVIEW_LIMIT = 2 * 1024 * 1024


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > PREVIEW_LIMIT:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _diff(old: str, new: str, shown: str, created: bool = False) -> str:
    """``created``: the file does not exist yet, so the diff is from ``/dev/null``."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile="/dev/null" if created else f"a/{shown}", tofile=f"b/{shown}", n=3,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _target(workspace: Path, raw: str) -> tuple[Path, str]:
    path = Path(raw).expanduser()
    path = path if path.is_absolute() else workspace / path
    try:
        shown = path.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        shown = str(path)
    return path, shown


def preview_diff(tool: str, args: dict[str, Any], workspace: Path) -> str:
    """A unified diff of the change this call proposes, or "" when there is none to show."""
    if tool == "apply_patch":
        return str(args.get("input", ""))
    raw = args.get("file_path") or args.get("path")
    if tool not in ("write_file", "edit") or not isinstance(raw, str):
        return ""
    path, shown = _target(workspace, raw)
    old = _read(path) if path.exists() else ""
    if old is None:
        return ""
    if tool == "write_file":
        return _diff(old, str(args.get("content", "")), shown, created=not path.exists())
    before, after = str(args.get("old_string", "")), str(args.get("new_string", ""))
    if not before or before not in old:
        return ""
    count = -1 if args.get("replace_all") else 1
    return _diff(old, old.replace(before, after, count), shown)
