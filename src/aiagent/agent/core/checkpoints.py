"""Workspace checkpoints: the state of the files before (and after) each turn.

Snapshots are commits in a *shadow* git repository kept under the data folder
(``<data>/checkpoints/<key>/``), with the workspace as its work tree. The user's own
``.git`` is never read or written; their ``.gitignore`` files are honoured, and a few
bulky folders (``node_modules``, virtualenvs, caches) are always left out.

A front-end takes a snapshot when a turn starts and another when it ends; ``restore``
puts back the files one turn changed (``/undo``) or every turn from one onwards
(``/rewind``). All calls are blocking (they run ``git``); call them from a thread.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from aiagent.infra.process.git import GitError, prepare
from aiagent.infra.process.git import run as run_git

DEFAULT_EXCLUDES = (
    "node_modules/", ".venv/", "venv/", "__pycache__/", "*.pyc", ".mypy_cache/",
    ".pytest_cache/", ".ruff_cache/", ".tox/", ".DS_Store", "target/", "dist/", "build/",
)
GIT_TIMEOUT = 60.0
SHADOW_CONFIG = (
    ("core.autocrlf", "false"), ("core.safecrlf", "false"),
    ("advice.addEmbeddedRepo", "false"), ("gc.auto", "0"),
)


class CheckpointError(Exception):
    """A snapshot or restore failed; the message is one line."""


@dataclass(frozen=True, slots=True)
class Change:
    status: str  # A (added), M (modified), D (deleted)
    path: str  # posix, relative to the workspace


@dataclass(slots=True)
class Turn:
    """One turn's checkpoints: ``before`` its tools ran, ``after`` it ended."""

    number: int
    prompt: str
    history_len: int  # messages in the conversation when the turn started
    before: str
    after: str | None = None
    undone: bool = False


@dataclass(slots=True)
class Checkpoints:
    workspace: Path
    root: Path
    turns: list[Turn] = field(default_factory=list)

    @classmethod
    def for_workspace(cls, workspace: Path, data_dir: Path) -> Checkpoints:
        workspace = workspace.resolve()
        key = hashlib.sha256(str(workspace).encode()).hexdigest()[:16]
        return cls(workspace, data_dir / "checkpoints" / key)

    @staticmethod
    def available() -> bool:
        return shutil.which("git") is not None

    # ---- git plumbing ----------------------------------------------------------------

    def _git(self, *args: str, check: bool = True) -> str:

        env = {
            **os.environ,
            "GIT_DIR": str(self.root),
            "GIT_WORK_TREE": str(self.workspace),
            "GIT_INDEX_FILE": str(self.root / "index"),
            "GIT_AUTHOR_NAME": "aiagent", "GIT_AUTHOR_EMAIL": "aiagent@localhost",
            "GIT_COMMITTER_NAME": "aiagent", "GIT_COMMITTER_EMAIL": "aiagent@localhost",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        env.pop("GIT_OBJECT_DIRECTORY", None)
        try:
            # Hardened: `add` runs clean filters and `checkout` smudge filters that the
            # workspace's .gitattributes select; snapshots keep the raw bytes instead.
            call = prepare(self.workspace, args[0], *args[1:], env=env, config=SHADOW_CONFIG,
                           user_drivers=False)
            done = run_git(call, GIT_TIMEOUT)
        except GitError as err:
            raise CheckpointError(f"checkpoints: {err}") from None
        except FileNotFoundError:
            raise CheckpointError("checkpoints need git, which is not installed") from None
        except subprocess.TimeoutExpired:
            raise CheckpointError(f"git {args[0]} took longer than {GIT_TIMEOUT:.0f}s") from None
        if check and done.returncode != 0:
            reason = done.stderr.decode(errors="replace").strip().splitlines()
            raise CheckpointError(f"git {args[0]} failed: {reason[-1] if reason else '?'}")
        return done.stdout.decode(errors="replace")

    def _ensure_repo(self) -> None:
        if (self.root / "HEAD").is_file():
            return
        self.root.mkdir(parents=True, exist_ok=True)
        self._git("init", "--quiet")
        info = self.root / "info"
        info.mkdir(exist_ok=True)
        (info / "exclude").write_text("\n".join(DEFAULT_EXCLUDES) + "\n", encoding="utf-8")
        (self.root / "aiagent-workspace").write_text(str(self.workspace), encoding="utf-8")

    # ---- snapshots -------------------------------------------------------------------

    def snapshot(self, label: str = "checkpoint") -> str:
        """Record every (not ignored) file of the workspace; return the commit id."""
        self._ensure_repo()
        self._git("add", "--all", "--ignore-errors", ".", check=False)
        tree = self._git("write-tree").strip()
        parent = self._git("rev-parse", "--verify", "--quiet", "refs/aiagent/last",
                           check=False).strip()
        args = ["commit-tree", tree, "-m", label] + (["-p", parent] if parent else [])
        commit = self._git(*args).strip()
        self._git("update-ref", "refs/aiagent/last", commit)
        return commit

    def changes(self, base: str, target: str | None = None) -> list[Change]:
        """Files that differ between ``base`` and ``target`` (a commit, or the workspace)."""
        if target is None:
            target = self.snapshot("compare")
        out = self._git("diff-tree", "-r", "--no-renames", "--name-status", "-z", base, target)
        parts = [p for p in out.split("\0") if p]
        return [Change(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]

    def diff(self, base: str, target: str | None = None) -> str:
        """A unified diff from ``base`` to ``target`` (default: the workspace now)."""
        if target is None:
            target = self.snapshot("compare")
        return self._git("diff-tree", "-r", "-p", "--no-renames", "--no-color", base, target)

    def restore(self, base: str, paths: list[str]) -> list[str]:
        """Put ``paths`` back as they were in ``base`` (deleting those it did not have)."""
        if not paths:
            return []
        present = set(self._git("ls-tree", "-r", "--name-only", "-z", base).split("\0"))
        back = [p for p in paths if p in present]
        if back:
            self._git("checkout", base, "--", *back)
        for rel in paths:
            if rel not in present:
                target = self.workspace / rel
                if target.is_file() or target.is_symlink():
                    target.unlink()
                _prune_empty_dirs(target.parent, self.workspace)
        return sorted(paths)

    # ---- turns -----------------------------------------------------------------------

    def begin(self, prompt: str, history_len: int) -> Turn:
        turn = Turn(len(self.turns) + 1, prompt, history_len, self.snapshot("before turn"))
        self.turns.append(turn)
        return turn

    def end(self, turn: Turn) -> None:
        turn.after = self.snapshot("after turn")

    def turn_changes(self, turn: Turn) -> list[Change]:
        return self.changes(turn.before, turn.after) if turn.after else []

    def last_changed_turn(self) -> Turn | None:
        for turn in reversed(self.turns):
            if not turn.undone and turn.after and turn.after != turn.before \
                    and self.turn_changes(turn):
                return turn
        return None

    def undo(self) -> tuple[Turn, list[str]] | None:
        """Restore the files the last turn changed; None when no turn changed files."""
        turn = self.last_changed_turn()
        if turn is None:
            return None
        restored = self.restore(turn.before, [c.path for c in self.turn_changes(turn)])
        turn.undone = True
        return turn, restored

    def rewind(self, number: int) -> list[str]:
        """Restore the files turns ``number`` and later changed; drop those turns."""
        chosen = [t for t in self.turns if t.number >= number and not t.undone]
        if not chosen:
            return []
        paths = sorted({c.path for t in chosen for c in self.turn_changes(t)})
        restored = self.restore(chosen[0].before, paths)
        self.turns = [t for t in self.turns if t.number < number]
        return restored


def _prune_empty_dirs(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_relative_to(stop):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
