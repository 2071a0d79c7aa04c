"""A task's repository: cloned shallow into the work folder, or a local folder used in place,
and checked before anything reads it.

Cloned repositories are untrusted: git runs with the hardened configuration of
:mod:`aiagent.infra.process.git` (no hooks, no fsmonitor, no drivers) and a clone never
carries the remote's ``.git/config``. A repository that tries anyway (an ``.agent/`` that
declares hooks, MCP servers or skills, a ``.git/config`` that names a program, a symlink that
leads out of the repository) fails with one line and the batch goes on.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

from aiagent.app.batch.repos import RepoSpec
from aiagent.infra.process import git

CLONE_TIMEOUT = 600.0
RETRIES = 2  # clone/network failures only
RETRY_PAUSE = 2.0
TRANSIENT = re.compile(
    r"could not resolve host|connection (?:timed out|refused|reset)|timed out|early eof|"
    r"rpc failed|the remote end hung up|temporary failure|network is unreachable|"
    r"tls|ssl|http 5\d\d|error: 5\d\d",
    re.IGNORECASE,
)
# .git/config keys (local scope) that name a program or move where git looks for one.
HOSTILE_GIT = re.compile(
    r"^(?:core\.(?:fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|"
    r"alternaterefscommand)|include\.path|includeif\..*|filter\..*|diff\..*\.(?:command|textconv)|"
    r"merge\..*\.driver|credential\..*|uploadpack\..*|gpg\..*program|sequence\.editor|"
    r"pager\..*|remote\..*\.(?:uploadpack|receivepack))$",
    re.IGNORECASE,
)
AGENT_KEYS = ("hooks", "mcp", "mcp_servers", "skills", "plugins")


class TaskFailure(Exception):
    """A task's one-line failure; ``transient`` ones (clone/network) are retried."""

    def __init__(self, reason: str, transient: bool = False) -> None:
        super().__init__(reason)
        self.transient = transient


def checkout(spec: RepoSpec, work: Path, *, history: bool = False) -> Path:
    """The folder to run the job in: ``spec``'s folder, or a fresh clone under ``work``."""
    if not spec.is_url:
        root = Path(spec.source)
        if not root.is_dir():
            raise TaskFailure(f"{spec.source}: no such folder")
        check_git_config(root)
    else:
        root = work / "repo"
        _clone_with_retries(spec, root, history)
    check_tree(root)
    return root


def _clone_with_retries(spec: RepoSpec, dest: Path, history: bool) -> None:
    for attempt in range(RETRIES + 1):
        shutil.rmtree(dest, ignore_errors=True)
        try:
            return clone(spec, dest, history)
        except TaskFailure as exc:
            if not exc.transient or attempt == RETRIES:
                raise
            time.sleep(RETRY_PAUSE * (attempt + 1))


def clone(spec: RepoSpec, dest: Path, history: bool = False) -> None:
    """``git clone`` with no prompt, no hook and no program from any config; shallow unless
    the job needs ``history`` (code-review's range)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    env = git.base_env()
    env["GIT_TERMINAL_PROMPT"] = "0"
    entries = [*git.rules().fixed, ("advice.detachedHead", "false")]
    if spec.source.startswith("file://"):
        entries.append(("protocol.file.allow", "always"))  # local remotes (tests, mirrors)
    env.update(git.config_entries(entries))
    argv = [git.executable(), "--no-pager", "clone", "--quiet", "--no-tags", "--single-branch",
            "--upload-pack=git-upload-pack", "--config", "core.hooksPath=/dev/null"]
    argv += [] if history else ["--depth", "1"]
    argv += ["--branch", spec.ref] if spec.ref else []
    argv += ["--", spec.source, str(dest)]
    try:
        done = git.run(git.GitCall(argv, env, dest.parent), CLONE_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise TaskFailure(f"git clone timed out after {CLONE_TIMEOUT:.0f}s", True) from None
    if done.returncode != 0:
        message = _last_line(done.stderr.decode("utf-8", "replace")) or f"exit {done.returncode}"
        raise TaskFailure(f"git clone failed: {message}", bool(TRANSIENT.search(message)))


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines[-1:] or [""])[0]


def check_git_config(root: Path) -> None:
    """A folder used in place: its own ``.git/config`` must not name a program."""
    config = root / ".git" / "config"
    if not config.is_file():
        return
    done = git.run(git.GitCall([git.executable(), "config", "--file", str(config), "--list", "--name-only"],
                               git.base_env(), root), 30)
    if done.returncode != 0:
        raise TaskFailure("hostile .git/config: git cannot read it")
    for key in done.stdout.decode("utf-8", "replace").split():
        if HOSTILE_GIT.match(key):
            raise TaskFailure(f"hostile .git/config: {key} names a program (never run in a batch)")


def check_tree(root: Path) -> None:
    """No symlink leads out of ``root``; no ``.agent/`` asks for code to run."""
    real = root.resolve()
    for folder, dirs, files in os.walk(real):
        dirs[:] = [d for d in dirs if not (folder == str(real) and d == ".git")]
        for name in dirs + files:
            path = Path(folder, name)
            if path.is_symlink():
                target = os.path.realpath(path)
                if target != str(real) and not target.startswith(str(real) + os.sep):
                    rel = path.relative_to(real)
                    raise TaskFailure(f"symlink out of the repository: {rel} -> {os.readlink(path)}")
    check_agent_folder(real)


def check_agent_folder(root: Path) -> None:
    agent = root / ".agent"
    if not agent.exists():
        return
    for sub in ("hooks", "skills", "plugins"):
        if (agent / sub).exists():
            raise TaskFailure(f"hostile .agent/: .agent/{sub} would run code (never in a batch)")
    config = agent / "config.toml"
    if config.is_file():
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            raise TaskFailure("hostile .agent/: config.toml is unreadable") from None
        for key in AGENT_KEYS:
            if key in data:
                raise TaskFailure(f"hostile .agent/: [{key}] in .agent/config.toml (never run in a batch)")
