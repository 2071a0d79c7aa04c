"""Files changed in a git range, relative to the scanned root (for `--scope diff`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from aiagent.security.errors import SecurityConfigError


def changed_files(root: Path, diff: str) -> frozenset[str]:
    if shutil.which("git") is None:
        raise SecurityConfigError("--diff", "", "git is not installed")
    base = root if root.is_dir() else root.parent
    spec = diff if ".." in diff else f"{diff}..HEAD"
    proc = subprocess.run(
        ["git", "-C", str(base), "diff", "--name-only", "--relative", "--diff-filter=ACMR", spec],
        capture_output=True, text=True, timeout=60, check=False,
    )
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["git diff failed"])[0]
        raise SecurityConfigError("--diff", diff, first)
    return frozenset(line.strip() for line in proc.stdout.splitlines() if line.strip())


def repo_prefix(root: Path) -> str:
    """``root`` relative to its git work tree, with a trailing slash ('' if none)."""
    if not any((p / ".git").exists() for p in (root, *root.parents)) or shutil.which("git") is None:
        return ""
    proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-prefix"],
                          capture_output=True, text=True, timeout=30, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""
