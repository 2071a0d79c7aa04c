"""The git calls distribution makes, each built by :mod:`aiagent.infra.process.git` (hardened:
a repository's config, hooks and attributes cannot make git run a program)."""

from __future__ import annotations

import os
from pathlib import Path

from aiagent.agent.skills.distribution.names import DistError, check_git_url, check_sha
from aiagent.infra.process.git import GitError, prepare, run

TIMEOUT = 180.0
NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1"}


def git(cwd: Path, subcommand: str, *args: str, timeout: float = TIMEOUT,
        config: tuple[tuple[str, str], ...] = ()) -> str:
    """Run hardened ``git subcommand args`` in ``cwd``; its stdout, or a one-line error."""
    import subprocess


    try:
        call = prepare(cwd, subcommand, *args, env={**os.environ, **NO_PROMPT},
                       config=(("advice.detachedHead", "false"), *config))
        done = run(call, timeout)
    except GitError as exc:
        raise DistError(str(exc)) from None
    except subprocess.TimeoutExpired:
        raise DistError(f"git {subcommand} timed out after {timeout:.0f} s") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        reason = next((ln for ln in lines if ln.startswith(("fatal:", "error:"))), lines[-1] if lines else "failed")
        raise DistError(f"git {subcommand}: {reason.removeprefix('fatal: ').removeprefix('error: ').strip()}")
    return done.stdout.decode("utf-8", "replace")


def clone(url: str, dest: Path) -> None:
    """Clone ``url`` (no checkout) into the new folder ``dest``."""
    check_git_url(url)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        git(dest.parent, "clone", "--no-checkout", "--quiet", "--no-recurse-submodules",
            "--upload-pack=git-upload-pack", "--", url, dest.name)
    except DistError as exc:
        raise DistError(f"cannot fetch {url}: {str(exc).removeprefix('git clone: ')}") from None


def checkout(repo: Path, what: str) -> str:
    """Check out ``what`` (a ref or commit) detached; the full commit id checked out."""
    git(repo, "checkout", "--quiet", "--detach", what, "--")
    return head(repo)


def head(repo: Path) -> str:
    return check_sha(git(repo, "rev-parse", "--verify", "HEAD^{commit}").strip())


def resolve(repo: Path, ref: str) -> str | None:
    """The commit ``ref`` names in a fresh clone (tag, remote branch or commit), or None."""
    for candidate in (f"refs/tags/{ref}", f"refs/remotes/origin/{ref}", ref):
        try:
            return check_sha(git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options",
                                 f"{candidate}^{{commit}}").strip())
        except DistError:
            continue
    return None


def fetch_pinned(url: str, sha: str, dest: Path, ref: str | None = None) -> str:
    """Clone ``url`` into ``dest`` and check out exactly ``sha``; when ``ref`` is given it
    must point at ``sha`` too. Anything else refuses."""
    sha = check_sha(sha)
    clone(url, dest)
    if ref is not None:
        found = resolve(dest, ref)
        if found != sha:
            raise DistError(f"{url}: {ref} is {found or 'missing'}, but {sha} was pinned; refusing to install")
    try:
        got = checkout(dest, sha)
    except DistError:
        raise DistError(f"{url}: commit {sha} is not in the repository; refusing to install") from None
    if got != sha:
        raise DistError(f"{url}: checked out {got}, expected {sha}; refusing to install")
    return got


def fetch_ref(url: str, ref: str | None, dest: Path) -> str:
    """Clone ``url`` into ``dest`` and check out ``ref`` (default: its HEAD)."""
    clone(url, dest)
    if ref is None:
        try:
            return checkout(dest, "HEAD")
        except DistError:
            raise DistError(f"{url}: the repository is empty") from None
    found = resolve(dest, ref)
    if found is None:
        raise DistError(f"{url}: no branch, tag or commit named {ref!r}")
    return checkout(dest, found)
