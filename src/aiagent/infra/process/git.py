"""Hardened git: the argv and environment for a git call that the repository it runs in
cannot turn into running a program.

A repository's config (``.git/config`` and every file it includes) and files
(``.gitattributes``, ``.git/hooks``) can make git run programs: the fsmonitor hook, pagers,
hooks, external diff and textconv drivers, clean/smudge filters, merge drivers, credential
helpers, gpg, ssh. Every git call from aiagent is built here and carries command-scope
configuration (``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``) that
neutralises each of them; git reads that scope last, so it wins over any file. The rules
are data: ``git_safety.toml`` beside this module.

Drivers are named by ``.gitattributes`` but defined in config, so the config is read first
with ``git config --list --includes --show-scope`` (which runs nothing) and every program
key the repository's own config (``local``/``worktree`` scope, includes and conditional
includes there too) sets is overridden: by the user's value from their system or global
config when they have one (git-lfs keeps working), else by a neutral value. :func:`config_env` gives the same entries for processes that are not ours
(git started by a shell command) to inherit.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

CONFIG_TIMEOUT = 30.0
Entry = tuple[str, str]


class GitError(Exception):
    """git is missing, or the configuration to harden against could not be read (one line)."""


@dataclass(frozen=True, slots=True)
class Rules:
    fixed: tuple[Entry, ...]
    when_set: Mapping[str, str]
    drivers: Mapping[str, tuple[Mapping[str, str], Mapping[str, str]]]  # section -> (keys, also)
    prefixes: Mapping[str, str]
    flags: Mapping[str, tuple[str, ...]]
    env_remove: frozenset[str]
    env_remove_prefixes: tuple[str, ...]
    env_set: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class GitCall:
    """One prepared git invocation: run ``argv`` in ``cwd`` with exactly ``env``."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path


@cache
def rules() -> Rules:
    text = resources.files("aiagent.infra.process").joinpath("git_safety.toml").read_text("utf-8")
    data: dict[str, Any] = tomllib.loads(text)
    drivers = {
        section: (dict(spec.get("keys", {})), dict(spec.get("also", {})))
        for section, spec in data.get("drivers", {}).items()
    }
    env = data.get("environment", {})
    return Rules(
        fixed=tuple((k, str(v)) for k, v in data.get("fixed", {}).items()),
        when_set=dict(data.get("when_set", {})),
        drivers=drivers,
        prefixes=dict(data.get("prefixes", {})),
        flags={k: tuple(v) for k, v in data.get("subcommand_flags", {}).items()},
        env_remove=frozenset(env.get("remove", ())),
        env_remove_prefixes=tuple(env.get("remove_prefixes", ())),
        env_set=dict(env.get("set", {})),
    )


def executable() -> str:
    exe = shutil.which("git")
    if exe is None:
        raise GitError("git is not installed: no `git` executable on PATH")
    return exe


USER_SCOPES = frozenset({"system", "global", "command"})  # the user's own config (and ours)


def parse_listing(listing: str) -> dict[str, list[tuple[str, str]]]:
    """``git config --list --show-scope -z`` as key -> [(scope, value), ...] in file order."""
    out: dict[str, list[tuple[str, str]]] = {}
    items = listing.split("\0")
    for scope, entry in zip(items[0::2], items[1::2], strict=False):
        key, _, value = entry.partition("\n")
        if key:
            out.setdefault(key, []).append((scope, value))
    return out


def _neutral(key: str, r: Rules) -> tuple[str, str | None] | None:
    """The neutral value of a program-naming key, and its driver (None when not one)."""
    if key in r.when_set:
        return r.when_set[key], None
    for prefix, value in r.prefixes.items():
        if key.startswith(prefix):
            return value, None
    section, _, rest = key.partition(".")
    name, dot, var = rest.rpartition(".")
    if dot and section in r.drivers and var in r.drivers[section][0]:
        return r.drivers[section][0][var], f"{section}.{name}"
    return None


def overrides(listing: str, *, user_drivers: bool = True) -> list[Entry]:
    """The entries that neutralise the programs a ``git config --list --show-scope -z``
    listing names. With ``user_drivers``, a program set by the user's own config (system,
    global) is kept, and one the repository sets is replaced by the user's value if there
    is one; without it every one is neutralised."""
    r = rules()
    trusted = USER_SCOPES if user_drivers else frozenset()
    found: dict[str, str] = {}
    neutralised: set[str] = set()
    for key, occurrences in parse_listing(listing).items():
        neutral = _neutral(key, r)
        if neutral is None or occurrences[-1][0] in trusted:
            continue
        mine = [value for scope, value in occurrences if scope in trusted]
        found[key] = mine[-1] if mine else neutral[0]
        if neutral[1] is not None and not mine:
            neutralised.add(neutral[1])
    for driver in sorted(neutralised):
        section = driver.partition(".")[0]
        for var, value in r.drivers[section][1].items():
            found[f"{driver}.{var}"] = value
    return sorted(found.items())


def config_entries(entries: Iterable[Entry]) -> dict[str, str]:
    """``entries`` as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``."""
    env: dict[str, str] = {}
    count = 0
    for count, (key, value) in enumerate(entries, start=1):
        env[f"GIT_CONFIG_KEY_{count - 1}"] = key
        env[f"GIT_CONFIG_VALUE_{count - 1}"] = value
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def base_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: ours) without the variables that make git run a program."""
    r = rules()
    out = {
        k: v for k, v in (os.environ if env is None else env).items()
        if k not in r.env_remove and not k.startswith(r.env_remove_prefixes)
    }
    out.update(r.env_set)
    return out


def read_listing(cwd: Path, env: Mapping[str, str]) -> str:
    """``git config --list --includes --show-scope -z`` as seen from ``cwd`` (git config
    runs nothing)."""
    call_env = {**env, **config_entries(rules().fixed)}
    try:
        done = subprocess.run(
            [executable(), "--no-pager", "config", "--list", "--includes", "--show-scope", "-z"],
            cwd=cwd, env=call_env, capture_output=True, timeout=CONFIG_TIMEOUT,
            stdin=subprocess.DEVNULL, check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError("git config --list timed out") from None
    except OSError as err:
        raise GitError(f"cannot run git in {cwd}: {err.strerror or err}") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"cannot read the git configuration: {lines[0] if lines else 'git config failed'}")
    return done.stdout.decode("utf-8", "surrogateescape")


def safe_config(cwd: Path, env: Mapping[str, str] | None = None, *,
                user_drivers: bool = True) -> list[Entry]:
    """Every entry a git call in ``cwd`` needs: the fixed ones, then the overrides."""
    environ = base_env(env)
    return [*rules().fixed, *overrides(read_listing(cwd, environ), user_drivers=user_drivers)]


def config_env(cwd: Path, env: Mapping[str, str] | None = None, *,
               user_drivers: bool = True) -> dict[str, str]:
    """The ``GIT_CONFIG_*`` variables that harden any git started in ``cwd`` (for example by
    a shell command). They replace any ``GIT_CONFIG_COUNT`` entries already in ``env``."""
    return config_entries(safe_config(cwd, env, user_drivers=user_drivers))


def prepare(
    cwd: Path, subcommand: str, *args: str, env: Mapping[str, str] | None = None,
    config: Iterable[Entry] = (), user_drivers: bool = True,
) -> GitCall:
    """A hardened ``git <subcommand> <args>`` in ``cwd``.

    ``env`` is the environment to start from (default: ours); ``config`` are extra entries
    of the caller (such as ``color.ui=never``); the safety entries come after them and win.
    ``user_drivers=False`` also turns off filter and diff drivers from the user's own config
    (checkpoints store raw bytes).
    """
    exe = executable()
    environ = base_env(env)
    entries = [*config, *safe_config(cwd, environ, user_drivers=user_drivers)]
    environ.update(config_entries(entries))
    flags = rules().flags.get(subcommand, ())
    return GitCall([exe, "--no-pager", subcommand, *flags, *args], environ, cwd)


async def prepare_async(
    cwd: Path, subcommand: str, *args: str, env: Mapping[str, str] | None = None,
    config: Iterable[Entry] = (), user_drivers: bool = True,
) -> GitCall:
    """:func:`prepare` in a thread (it runs ``git config`` once)."""
    return await asyncio.to_thread(prepare, cwd, subcommand, *args, env=env, config=config,
                                   user_drivers=user_drivers)


def run(call: GitCall, timeout: float) -> subprocess.CompletedProcess[bytes]:
    """Run a prepared call to the end, capturing its output (no stdin)."""
    return subprocess.run(call.argv, cwd=call.cwd, env=call.env, capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)
