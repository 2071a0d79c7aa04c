"""The user's login-shell environment, captured once outside the sandbox.

A command asked to run with login semantics (``bash -lc``) used to run the user's rc files
(``.profile``, ``.bash_profile``, ``.zprofile``…) inside the sandbox on every command, where
their writes fail and print noise (pyenv: ``mktemp: … Permission denied``, ``cannot
rehash``). Instead, as Codex's shell snapshot does, the login shell runs **once**, outside
the sandbox, in the home folder, with a time limit: it ends by printing its environment
(through this Python, ``-I``) into a file. Commands then run as ``shell -c`` with that
environment, so the ``PATH`` the rc files set still applies and they never run again.

The snapshot is kept in ``$XDG_CACHE_HOME/aiagent/shell-snapshots/`` (mode 0600, without
credential-like variables) and taken again after an hour or when an rc file changes.
Output that is not a JSON object of variables, over :data:`MAX_BYTES`, or over
:data:`MAX_VARIABLES` is refused, and so is a shell that outlives the time limit: the
command then runs as before (``-lc``) and its result says why. Aliases and functions are
not carried (``bash -lc`` does not expand aliases either).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path

from aiagent.infra.config.paths import cache_dir
from aiagent.infra.process.collect import run_collected
from aiagent.infra.process.environment import without_secrets
from aiagent.infra.process.tree import TAG_VARIABLE

MAX_BYTES = 1024 * 1024
MAX_VARIABLES = 4096
MAX_AGE = 3600.0
RC_FILES = (".profile", ".bash_profile", ".bash_login", ".bashrc", ".zshenv", ".zprofile",
            ".zshrc", ".zlogin", ".config/fish/config.fish")
VOLATILE = {"PWD", "OLDPWD", "SHLVL", "_", TAG_VARIABLE}
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DUMP = "import json,os,sys; open(sys.argv[1],'w').write(json.dumps(dict(os.environ)))"
SHELLS = ("bash", "zsh", "sh", "dash", "ksh", "mksh", "fish")

_memo: dict[str, dict[str, str] | str] = {}


class SnapshotRefused(Exception):
    """The login shell's environment could not be captured; the message says why."""


async def login_env(shell: str, timeout: float, base: dict[str, str]) -> dict[str, str]:
    """The environment ``shell -l`` sets up, from the memo, the cache or a fresh run.
    Raises :class:`SnapshotRefused` (remembered for this process)."""
    key = _key(shell)
    found = _memo.get(key)
    if found is None:
        try:
            found = _cached(key) or await _take(shell, key, timeout, base)
        except SnapshotRefused as err:
            found = str(err)
        _memo[key] = found
    if isinstance(found, str):
        raise SnapshotRefused(found)
    return found


def is_login_shell_argv(argv: list[str]) -> bool:
    """``[shell, "-lc", script]`` for a known shell."""
    return len(argv) == 3 and argv[1] == "-lc" and Path(argv[0]).name in SHELLS


def _key(shell: str) -> str:
    home = os.path.expanduser("~")
    return hashlib.sha256(f"{shell}\0{home}\0{os.getuid()}".encode()).hexdigest()[:24]


def _folder() -> Path:

    return cache_dir() / "shell-snapshots"


def _cached(key: str) -> dict[str, str] | None:
    path = _folder() / f"{key}.json"
    try:
        taken = path.stat().st_mtime
    except OSError:
        return None
    home = Path.home()
    newest_rc = max((_mtime(home / name) for name in RC_FILES), default=0.0)
    if time.time() - taken > MAX_AGE or newest_rc >= taken:
        return None
    try:
        return _validate(path.read_bytes())
    except (OSError, SnapshotRefused):
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


async def _take(shell: str, key: str, timeout: float, base: dict[str, str]) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="aiagent-snapshot-") as tmp:
        out = Path(tmp) / "env.json"
        script = f"exec {shlex.quote(sys.executable)} -I -c {shlex.quote(DUMP)} {shlex.quote(str(out))}"
        await _run_login(shell, script, timeout, base)
        try:
            if out.stat().st_size > MAX_BYTES:
                raise SnapshotRefused(f"the environment of {shell} -l is over {MAX_BYTES} bytes")
            env = _validate(out.read_bytes())
        except FileNotFoundError:
            raise SnapshotRefused(f"{shell} -l ended before printing its environment "
                                  "(does an rc file exit?)") from None
    _save(key, env)
    return env


async def _run_login(shell: str, script: str, timeout: float, base: dict[str, str]) -> None:
    """The login shell, in the home folder, through the one runner: its whole tree is
    killed on the time limit; what it prints is not kept."""

    home = Path(os.path.expanduser("~"))
    try:
        done = await run_collected([shell, "-lc", script], cwd=home if home.is_dir() else Path("/"),
                                   timeout=timeout, env=base, max_bytes=0)
    except OSError as err:
        raise SnapshotRefused(f"cannot start {shell}: {err.strerror or err}") from None
    if done.timed_out:
        raise SnapshotRefused(f"{shell} -l took more than {timeout:g} s to start")


def _validate(raw: bytes) -> dict[str, str]:
    if len(raw) > MAX_BYTES:
        raise SnapshotRefused(f"the login environment is over {MAX_BYTES} bytes")
    try:
        data = json.loads(raw)
    except ValueError:
        raise SnapshotRefused("the login environment is not valid JSON") from None
    if not isinstance(data, dict) or len(data) > MAX_VARIABLES:
        raise SnapshotRefused(f"the login environment is not a table of at most {MAX_VARIABLES} variables")
    env: dict[str, str] = {}
    for name, value in data.items():
        if not (isinstance(value, str) and NAME.fullmatch(name) and "\0" not in value):
            continue  # shell functions (BASH_FUNC_x%%) and names no shell can use
        if name not in VOLATILE:
            env[name] = value
    return without_secrets(env)


def _save(key: str, env: dict[str, str]) -> None:
    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = folder / f".{key}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(env, f)
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        pass  # no cache: the snapshot is taken again next run
