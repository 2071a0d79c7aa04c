"""Files changed in a git range, relative to the scanned root (for `--scope diff`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from aiagent.engines.security.errors import SecurityConfigError
from aiagent.infra.process.git import GitError, prepare, run


def changed_files(root: Path, diff: str) -> frozenset[str]:
    if shutil.which("git") is None:
        raise SecurityConfigError("--diff", "", "git is not installed")
    base = root if root.is_dir() else root.parent
    spec = diff if ".." in diff else f"{diff}..HEAD"
    proc = _git(base, "diff", "--name-only", "--relative", "--diff-filter=ACMR", spec, timeout=60)
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["git diff failed"])[0]
        raise SecurityConfigError("--diff", diff, first)
    return frozenset(line.strip() for line in proc.stdout.splitlines() if line.strip())


def _git(cwd: Path, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """A hardened git call (see aiagent.infra.process.git); a config problem reads as a failure."""

    try:
        done = run(prepare(cwd, *args), timeout)
    except GitError as err:
        return subprocess.CompletedProcess(args, 1, "", str(err))
    return subprocess.CompletedProcess(args, done.returncode, done.stdout.decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))


def repo_prefix(root: Path) -> str:
    """``root`` relative to its git work tree, with a trailing slash ('' if none)."""
    if not any((p / ".git").exists() for p in (root, *root.parents)) or shutil.which("git") is None:
        return ""
    proc = _git(root, "rev-parse", "--show-prefix", timeout=30)
    return proc.stdout.strip() if proc.returncode == 0 else ""
