"""Which changes to review: the diff selection (``--diff``, ``--staged``, ``--base``, the
working tree) turned into hardened git calls (every one through :mod:`aiagent.infra.process.git`).

A revision that does not resolve in a shallow clone gets a message telling how to deepen
it rather than git's own error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aiagent.infra.process import git as hardened

GIT_TIMEOUT = 120.0
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
#: diff settings of ours; the safety entries of process/git come after them and win
DIFF_CONFIG = (("core.quotePath", "false"), ("color.ui", "never"), ("diff.noprefix", "false"),
               ("diff.mnemonicPrefix", "false"), ("diff.relative", "false"))
_REV = re.compile(r"[A-Za-z0-9_./~^@{}:+-]{1,256}")
DEEPEN_HINT = ("this is a shallow clone: fetch more history (`git fetch --deepen=50`, "
               "`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)")


class ReviewInputError(Exception):
    """The changes cannot be read (not a repository, unknown revision): one line, exit 2."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class DiffSpec:
    """What the user asked for: exactly one of the four selections."""

    range: str = ""  # --diff A..B / A...B / A (A..HEAD)
    staged: bool = False
    base: str = ""  # --base BRANCH (its merge base with HEAD)

    def describe(self) -> str:
        if self.range:
            return f"--diff {self.range}"
        if self.staged:
            return "--staged"
        return f"--base {self.base}" if self.base else "the working tree"


@dataclass(frozen=True, slots=True)
class Selection:
    """The resolved selection: repository root, diff arguments and the new side's content
    (``worktree``, ``index``, or a commit id)."""

    root: Path
    diff_args: tuple[str, ...]
    new_side: str
    label: str


def git(cwd: Path, *args: str, timeout: float = GIT_TIMEOUT) -> tuple[int, bytes, str]:
    """One hardened git call: (exit status, stdout, first line of stderr)."""
    try:
        done = hardened.run(hardened.prepare(cwd, args[0], *args[1:], config=DIFF_CONFIG), timeout)
    except hardened.GitError as exc:
        raise ReviewInputError(str(exc)) from None
    except OSError as exc:  # includes a timeout's cousins from subprocess
        raise ReviewInputError(f"cannot run git in {cwd}: {exc}") from None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return done.returncode, done.stdout, (lines[-1] if lines else "")


def repository_root(cwd: Path) -> Path:
    code, out, _ = git(cwd, "rev-parse", "--show-toplevel")
    if code != 0:
        raise ReviewInputError(f"not a git repository: {cwd} (code review reads the changes "
                               "from git; run it inside a work tree or pass --cwd)")
    return Path(out.decode("utf-8", "surrogateescape").strip())


def is_shallow(root: Path) -> bool:
    code, out, _ = git(root, "rev-parse", "--is-shallow-repository")
    return code == 0 and out.strip() == b"true"


def resolve_commit(root: Path, rev: str, flag: str) -> str:
    """The commit id of ``rev``; a one-line error naming ``flag`` when there is none."""
    if not _REV.fullmatch(rev) or rev.startswith("-"):
        raise ReviewInputError(f"{flag}: {rev!r} is not a revision")
    code, out, _ = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options",
                       f"{rev}^{{commit}}")
    if code != 0:
        hint = f"; {DEEPEN_HINT}" if is_shallow(root) else ""
        raise ReviewInputError(f"{flag}: unknown revision {rev!r}{hint}")
    return out.decode().strip()


def merge_base(root: Path, a: str, b: str, flag: str) -> str:
    code, out, _ = git(root, "merge-base", a, b)
    if code != 0:
        hint = DEEPEN_HINT if is_shallow(root) else "the two have no common history"
        raise ReviewInputError(f"{flag}: no merge base of {a[:12]} and {b[:12]}: {hint}")
    return out.decode().strip()


def head_or_empty(root: Path) -> str:
    code, out, _ = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    return out.decode().strip() if code == 0 else EMPTY_TREE


def select(cwd: Path, spec: DiffSpec) -> Selection:
    root = repository_root(cwd)
    if spec.range:
        return _range(root, spec.range)
    if spec.base:
        head = resolve_commit(root, "HEAD", "--base")
        base = merge_base(root, resolve_commit(root, spec.base, "--base"), head, "--base")
        return Selection(root, (base, head), head, spec.describe())
    if spec.staged:
        return Selection(root, ("--cached", head_or_empty(root)), "index", spec.describe())
    return Selection(root, (head_or_empty(root),), "worktree", spec.describe())


def _range(root: Path, text: str) -> Selection:
    flag = f"--diff {text}"
    sep = "..." if "..." in text else ".." if ".." in text else ""
    left, right = text.split(sep, 1) if sep else (text, "HEAD")
    old = resolve_commit(root, left or "HEAD", "--diff")
    new = resolve_commit(root, right or "HEAD", "--diff")
    if sep == "...":
        old = merge_base(root, old, new, flag)
    return Selection(root, (old, new), new, text)


def diff_text(sel: Selection, context: int = 3) -> str:
    code, out, err = git(sel.root, "diff", "--no-color", "-M", f"--unified={context}",
                         "--src-prefix=a/", "--dst-prefix=b/", "--submodule=short",
                         *sel.diff_args, "--")
    if code != 0:
        raise ReviewInputError(f"git diff failed for {sel.label}: {err or f'exit {code}'}")
    return out.decode("utf-8", "replace")
