"""What outside input may say: skill names, versions, commit ids, git URLs and refs.

Everything a registry, a lock file or the command line names is checked here before it
becomes part of a path or a git argument, so ``../x``, ``-c core.x=y`` or ``ext::sh`` never
reach the file system or git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # agentskills.io: no edge or double hyphens
MAX_NAME = 64
VERSION_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$")
SHA_RE = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")
REF_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")
URL_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")


class DistError(Exception):
    """A problem installing, exporting or reading a registry (one line for the user)."""

    exit_code = 1


def check_name(name: str, where: str = "skill name") -> str:
    if not isinstance(name, str) or len(name) > MAX_NAME or not NAME_RE.match(name):
        raise DistError(f"{where}: {name!r} is not a skill name (lowercase letters, digits and single hyphens, at most {MAX_NAME})")
    return name


def check_version(version: str, where: str = "version") -> str:
    text = str(version)
    if not VERSION_RE.match(text) or len(text) > 64:
        raise DistError(f"{where}: {text!r} is not a SemVer version like 1.2.0")
    return text


def check_sha(sha: str, where: str = "commit") -> str:
    text = str(sha).strip().lower()
    if not SHA_RE.match(text):
        raise DistError(f"{where}: {sha!r} is not a full commit id (40 hex digits)")
    return text


def check_ref(ref: str, where: str = "ref") -> str:
    if not REF_RE.match(ref) or ".." in ref or ref.endswith((".lock", "/")) or "//" in ref:
        raise DistError(f"{where}: {ref!r} is not a git branch, tag or commit")
    return ref


def check_subpath(sub: str | None, where: str = "path") -> str | None:
    """A folder inside a repository: relative, no ``..``, no hidden parts."""
    if sub in (None, "", "."):
        return None
    parts = Path(str(sub)).parts
    if Path(str(sub)).is_absolute() or any(p in ("..", ".git") or p.startswith("-") for p in parts):
        raise DistError(f"{where}: {sub!r} must be a folder inside the repository")
    return Path(*parts).as_posix()


def check_git_url(url: str, where: str = "git URL") -> str:
    """A URL git may fetch from: a scheme we allow, scp-like ``user@host:path``, or a local
    path. Never an option (``-u…``) or a remote helper (``ext::…``)."""
    text = str(url).strip()
    bad = not text or text.startswith("-") or "::" in text or any(c in text for c in "\n\r\0 ")
    if not bad and "://" in text:
        bad = not text.startswith(URL_SCHEMES)
    if bad:
        raise DistError(f"{where}: {url!r} is not a git URL this can fetch (https://, ssh://, git@host:path, file:// or a path)")
    return text


@dataclass(frozen=True, slots=True)
class Request:
    """What ``aiagent skill install`` was asked for."""

    kind: str  # registry | git | path
    target: str  # a name, a URL or a path
    spec: str | None = None  # registry: version or range; git: ref


def split_ref(text: str) -> tuple[str, str | None]:
    """``URL@REF`` → (URL, REF); an ``@`` of ``git@host:`` or ``user@host`` is not a ref."""
    left, at, right = text.rpartition("@")
    if not at or not left or ":" in right:
        return text, None
    after_scheme = left.split("://", 1)[-1]
    if "/" not in after_scheme and ":" not in after_scheme:
        return text, None
    return left, right


def parse_request(text: str, cwd: Path) -> Request:
    """``NAME[@VERSION]``, ``GIT_URL[@REF]`` or ``./PATH``."""
    if text.startswith((".", "/", "~")) and "://" not in text:
        path = Path(text).expanduser()
        base, ref = split_ref(text)
        looks_git = ref is not None and not (cwd / path).exists()
        if looks_git:
            return Request("git", str((cwd / Path(base).expanduser()).resolve()), check_ref(ref or ""))
        local = (cwd / path).resolve()
        if local.is_dir() and ((local / "HEAD").is_file() and (local / "objects").is_dir()):
            return Request("git", str(local))  # a bare repository
        return Request("path", str(local))
    name, _, spec = text.partition("@")
    if NAME_RE.match(name) and "/" not in text and ":" not in name:
        return Request("registry", check_name(name), spec or None)
    base, ref = split_ref(text)
    if "://" not in base and not base.startswith("git@") and re.match(r"^[\w.-]+\.[a-z]{2,}/", base):
        base = "https://" + base  # github.com/co/skill
    return Request("git", check_git_url(base), check_ref(ref) if ref else None)
