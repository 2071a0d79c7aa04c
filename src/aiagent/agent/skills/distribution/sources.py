"""Fetching one skill into a staging folder: from a registry pin, a git repository or a
local folder. Nothing here writes outside the staging folder it is given."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from aiagent.agent.skills.distribution import gitio
from aiagent.agent.skills.distribution.fstree import safe_copy, tree_digest
from aiagent.agent.skills.distribution.lockfile import Pin
from aiagent.agent.skills.distribution.names import DistError, check_name, check_subpath
from aiagent.agent.skills.distribution.registry import VersionRecord
from aiagent.agent.skills.loader import is_skill_folder, read_skill
from aiagent.agent.skills.manifest import Manifest, ManifestError


@dataclass(slots=True)
class Fetched:
    """A skill copied into staging and read: ready to be renamed into place."""

    manifest: Manifest
    folder: Path
    pin: Pin
    warnings: list[str]


def read_folder(folder: Path) -> tuple[Manifest, list[str]]:

    if not is_skill_folder(folder):
        raise DistError(f"{folder.name}: no SKILL.yaml or SKILL.md in the skill folder")
    warnings: list[str] = []
    try:
        manifest = read_skill(folder, warnings)
    except ManifestError as exc:
        raise DistError(f"the skill's manifest is invalid: {exc}") from None
    check_name(manifest.name, f"{manifest.file.name}: name")
    return manifest, warnings


def pick_folder(checkout: Path, sub: str | None, where: str) -> Path:
    folder = checkout / sub if sub else checkout
    real = Path(os.path.realpath(folder))
    if not real.is_relative_to(Path(os.path.realpath(checkout))) or folder.is_symlink():
        raise DistError(f"{where}: path {sub!r} leaves the repository")
    if not folder.is_dir():
        raise DistError(f"{where}: no folder {sub!r} in the repository")
    return folder


def _stage(src: Path, work: Path, name_hint: str) -> tuple[Path, Manifest, list[str]]:
    hint = re.sub(r"[^a-z0-9]+", "-", name_hint.lower()).strip("-") or "skill"
    dest = work / hint
    safe_copy(src, dest)
    manifest, warnings = read_folder(dest)
    return dest, manifest, warnings


def from_record(record: VersionRecord, work: Path, registry: str) -> Fetched:
    """The version a registry pins, checked out at exactly its commit and verified."""
    checkout = work / "checkout"
    gitio.fetch_pinned(record.git, record.commit, checkout, record.ref)
    src = pick_folder(checkout, record.path, f"{record.name} {record.version}")
    folder, manifest, warnings = _stage(src, work / "stage", record.name)
    where = f"registry entry {record.name} {record.version}"
    if manifest.name != record.name:
        raise DistError(f"{where}: the skill at {record.commit[:12]} is named {manifest.name!r}; refusing to install")
    if manifest.version != record.version and manifest.format == "yaml":
        raise DistError(f"{where}: the skill at {record.commit[:12]} says version {manifest.version}; refusing to install")
    pin = Pin(record.name, record.version, "registry", tree_digest(folder), record.git, record.commit,
              record.path, record.ref, registry)
    return Fetched(manifest, folder, pin, warnings)


def from_git(url: str, ref: str | None, work: Path, sub: str | None = None) -> Fetched:
    checkout = work / "checkout"
    commit = gitio.fetch_ref(url, ref, checkout)
    src = pick_folder(checkout, check_subpath(sub), url)
    hint = Path(url.rstrip("/").split(":")[-1]).name.removesuffix(".git")
    folder, manifest, warnings = _stage(src, work / "stage", hint)
    pin = Pin(manifest.name, manifest.version, "git", tree_digest(folder), url, commit, sub, ref)
    return Fetched(manifest, folder, pin, warnings)


def from_path(path: Path, work: Path, recorded: str | None = None) -> Fetched:
    if path.is_file():
        raise DistError(f"{path}: is a file; a skill is a folder holding SKILL.yaml or SKILL.md")
    if not path.is_dir():
        raise DistError(f"{path}: no such folder")
    folder, manifest, warnings = _stage(path, work / "stage", path.resolve().name)
    pin = Pin(manifest.name, manifest.version, "path", tree_digest(folder), path=recorded or str(path))
    return Fetched(manifest, folder, pin, warnings)


def from_pin(pin: Pin, work: Path, project_root: Path) -> Fetched:
    """Exactly what a lock file entry names; the content must hash to its digest."""
    if pin.source == "path":
        got = from_path((project_root / (pin.path or "")).resolve(), work, pin.path)
    else:
        record = VersionRecord(pin.name, pin.version, pin.git or "", pin.commit or "", pin.path, pin.ref)
        got = from_record(record, work, pin.registry or "") if pin.source == "registry" else _git_pin(pin, work)
    if pin.digest and got.pin.digest != pin.digest:
        raise DistError(f"{pin.name}: the content differs from the lock file ({got.pin.digest[:19]}… not {pin.digest[:19]}…); refusing to install")
    got.pin = replace(got.pin, spec=pin.spec, registry=pin.registry, ref=pin.ref, source=pin.source)
    return got


def _git_pin(pin: Pin, work: Path) -> Fetched:
    checkout = work / "checkout"
    gitio.fetch_pinned(pin.git or "", pin.commit or "", checkout)
    src = pick_folder(checkout, pin.path, pin.name)
    folder, manifest, warnings = _stage(src, work / "stage", pin.name)
    return Fetched(manifest, folder, replace(pin, digest=tree_digest(folder)), warnings)
