"""Workspace trust: whether code and settings that came with a folder may take effect.

A folder is trusted when the user said so: ``aiagent trust [PATH]`` (recorded in a small
0600 file in the user's data folder, keyed by the folder's real path; a trusted folder
trusts its subfolders), ``--trust`` for one run, ``AIAGENT_TRUST_WORKSPACE=1`` in the
environment, or ``[security] trust_workspace = true`` in the USER config file. A project's
own config can never trust itself.

Until then, project skills with code are skipped (:mod:`aiagent.agent.skills.factory`) and the
keys of the project config that would widen what the agent may do are dropped
(:func:`restrict_project_layer`, rules in ``trust.toml``); keys that restrict still apply.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.infra.config import paths

TRUST_ENV = "AIAGENT_TRUST_WORKSPACE"
STORE_NAME = "trusted-folders.json"
TRUE_WORDS = ("1", "true", "yes", "on")


@dataclass(slots=True)
class Trust:
    """The trust decision for one project root, and what was held back because of it."""

    root: Path
    trusted: bool
    reason: str  # why trusted, or "" when not
    ignored_keys: list[str] = field(default_factory=list)  # project config keys dropped
    skipped: list[str] = field(default_factory=list)  # "name (backend)" of project skills
    warned: bool = False

    def notice(self) -> str:
        """One line: what was skipped or ignored and how to trust the folder."""
        parts = []
        if self.skipped:
            parts.append(f"skipped project skills with code: {', '.join(self.skipped)}")
        if self.ignored_keys:
            parts.append("ignored project config keys that widen permissions: "
                         + ", ".join(self.ignored_keys))
        return (f"this folder is not trusted ({self.root}): {'; '.join(parts)}. "
                "Trust it with `aiagent trust` or run with --trust")

    def report_once(self, report: Any) -> None:
        """Send :meth:`notice` to ``report`` the first time something was held back."""
        if self.trusted or self.warned or not (self.skipped or self.ignored_keys):
            return
        self.warned = True
        report(self.notice())


# ---- the store ----------------------------------------------------------------------


def real(path: Path | str) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(path))))


def store_file(env: Mapping[str, str] | None = None) -> Path:

    return paths.data_dir(env) / STORE_NAME


class TrustStore:
    """Trusted folders (real paths) in a JSON file only the user can read and write."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def folders(self) -> list[Path]:
        try:
            data = json.loads(self.file.read_text("utf-8"))
        except (OSError, ValueError):
            return []
        items = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(items, list):
            return []
        return [Path(p) for p in items if isinstance(p, str) and os.path.isabs(p)]

    def covering(self, folder: Path) -> Path | None:
        """The trusted folder that ``folder`` (by real path) is in, or None."""
        target = real(folder)
        return next((f for f in self.folders() if target.is_relative_to(f)), None)

    def add(self, folder: Path) -> Path:
        target = real(folder)
        kept = [f for f in self.folders() if f != target]
        self._write([*kept, target])
        return target

    def remove(self, folder: Path) -> bool:
        target = real(folder)
        before = self.folders()
        kept = [f for f in before if f != target]
        if len(kept) == len(before):
            return False
        self._write(kept)
        return True

    def _write(self, folders: list[Path]) -> None:
        """Replace the file atomically; it is created 0600 and never world-readable."""
        self.file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps({"version": 1, "folders": sorted(map(str, folders))}, indent=1) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".trusted-", dir=self.file.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.file)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


# ---- deciding -----------------------------------------------------------------------


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() in TRUE_WORDS


def decide(root: Path, env: Mapping[str, str], user: Mapping[str, Any],
           flags: Mapping[str, Any] | None = None) -> Trust:
    """Trust for project ``root`` from what only the user controls: the command line,
    the environment, the user config file and the trust store (never the project)."""
    root = real(root)
    flag = ((flags or {}).get("security") or {}).get("trust_workspace")
    if _truthy(flag):
        return Trust(root, True, "--trust")
    if _truthy(env.get(TRUST_ENV, "")):
        return Trust(root, True, TRUST_ENV)
    if _truthy((user.get("security") or {}).get("trust_workspace")):
        return Trust(root, True, "[security] trust_workspace in the user config")
    folder = TrustStore(store_file(env)).covering(root)
    if folder is not None:
        return Trust(root, True, f"trusted folder {folder}")
    return Trust(root, False, "")


# ---- the project config layer -------------------------------------------------------


@cache
def _rules() -> dict[str, Any]:
    text = resources.files("aiagent.infra.config").joinpath("trust.toml").read_text("utf-8")
    return tomllib.loads(text)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value and not _is_leaf_table(dotted):
            out.update(_flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _is_leaf_table(dotted: str) -> bool:
    rules = _rules()
    return any(_matches(dotted, k) for k in rules["drop"]["keys"])


def _matches(dotted: str, pattern: str) -> bool:
    parts, want = dotted.split("."), pattern.split(".")
    return len(parts) == len(want) and all(w in ("*", p) for p, w in zip(parts, want, strict=True))


def _keeps(dotted: str, value: Any, base: Mapping[str, Any]) -> bool:
    """May an untrusted project set ``dotted`` to ``value``? Only where it restricts."""
    rules = _rules()
    if any(_matches(dotted, k) for k in rules["drop"]["keys"]):
        return False
    allowed = next((v for k, v in rules["restrict_only"].items() if _matches(dotted, k)), None)
    if allowed is not None:
        return value in allowed
    order = next((v for k, v in rules["ordered"].items() if _matches(dotted, k)), None)
    if order is not None:
        current = _get(base, dotted)
        rank = {name: i for i, name in enumerate(order)}
        return value in rank and rank[value] <= rank.get(current, 0)
    return True


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def _put(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


def restrict_project_layer(project: Mapping[str, Any],
                           base: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The project config of an untrusted folder without the keys that widen permissions
    (compared with ``base``, the layers below it), and the dotted keys dropped."""
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for dotted, value in _flatten(project).items():
        if _keeps(dotted, value, base):
            _put(kept, dotted, value)
        else:
            dropped.append(dotted)
    return kept, dropped
