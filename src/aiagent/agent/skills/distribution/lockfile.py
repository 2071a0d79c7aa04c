"""``.agent/skills.lock``: the skills a project uses, pinned, so a teammate installs the
same ones (``aiagent skill install`` with no arguments). Also the receipt kept in every
installed skill folder (``.aiagent-install.json``), which ``update`` and ``outdated`` read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from aiagent.agent.skills.distribution.fstree import write_atomic
from aiagent.agent.skills.distribution.names import (
    DistError,
    check_git_url,
    check_name,
    check_sha,
    check_subpath,
    check_version,
)

LOCK_NAME = "skills.lock"
RECEIPT = ".aiagent-install.json"
HEADER = "# Written by `aiagent skill add/install/remove`. Commit it; `aiagent skill install` installs exactly this.\n"


@dataclass(frozen=True, slots=True)
class Pin:
    """Where one installed skill came from, exactly."""

    name: str
    version: str
    source: str  # registry | git | path
    digest: str  # sha256 of the installed tree
    git: str | None = None
    commit: str | None = None
    path: str | None = None  # folder inside the repository, or the local folder
    ref: str | None = None
    registry: str | None = None
    spec: str | None = None  # the range asked for (registry)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and k != "name"}


def pin_from(name: str, data: Any, where: str) -> Pin:
    if not isinstance(data, dict):
        raise DistError(f"{where}: expected a mapping")
    known = {f.name for f in fields(Pin)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DistError(f"{where}: unknown field {unknown[0]!r}")
    source = data.get("source")
    if source not in ("registry", "git", "path"):
        raise DistError(f"{where}.source: {source!r} is not registry, git or path")
    pin = Pin(check_name(name, where), check_version(str(data.get("version", "")), f"{where}.version"),
              source, str(data.get("digest") or ""),
              **{k: (str(data[k]) if data.get(k) is not None else None)
                 for k in ("git", "commit", "path", "ref", "registry", "spec")})
    if pin.source != "path":
        check_git_url(pin.git or "", f"{where}.git")
        check_sha(pin.commit or "", f"{where}.commit")
        check_subpath(pin.path, f"{where}.path")
    return pin


def lock_path(project_root: Path) -> Path:
    return project_root / ".agent" / LOCK_NAME


def read_lock(path: Path) -> dict[str, Pin]:
    import yaml

    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text("utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DistError(f"{path}: not a readable lock file: {getattr(exc, 'problem', None) or exc}") from None
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        raise DistError(f"{path}: expected `skills:` mapping names to pins")
    return {name: pin_from(str(name), value, f"{path}: skills.{name}") for name, value in skills.items()}


def write_lock(path: Path, pins: dict[str, Pin]) -> None:
    import yaml

    body = {"version": 1, "skills": {n: pins[n].as_dict() for n in sorted(pins)}}
    write_atomic(path, HEADER + yaml.safe_dump(body, sort_keys=False))


def read_receipt(folder: Path) -> Pin | None:
    try:
        data = json.loads((folder / RECEIPT).read_text("utf-8"))
        return pin_from(str(data.pop("name")), data, str(folder / RECEIPT))
    except (OSError, ValueError, KeyError, AttributeError, DistError):
        return None


def write_receipt(folder: Path, pin: Pin) -> None:
    write_atomic(folder / RECEIPT, json.dumps({"name": pin.name, **pin.as_dict()}, indent=2) + "\n")
