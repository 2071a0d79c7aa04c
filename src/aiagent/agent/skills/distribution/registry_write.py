"""Keeping a team registry (``aiagent skill registry init|add|publish``): write the §4.12
files into a local git repository and commit them. A published version is immutable: the
same version with another commit is refused."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiagent.agent.skills.distribution import gitio, sources
from aiagent.agent.skills.distribution.fstree import remove, write_atomic
from aiagent.agent.skills.distribution.lockfile import Pin
from aiagent.agent.skills.distribution.names import (
    DistError,
    check_git_url,
    check_sha,
    check_subpath,
    parse_request,
)
from aiagent.agent.skills.distribution.registry import load_yaml
from aiagent.agent.skills.versions import parse_version

IDENTITY = (("user.name", "aiagent skill registry"), ("user.email", "aiagent@localhost"))


@dataclass(frozen=True, slots=True)
class Published:
    name: str
    version: str
    commit: str
    changed: bool  # False: this exact version was already there


def _dump(data: Any) -> str:
    import yaml

    text: str = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    return text


def _identity(repo: Path) -> tuple[tuple[str, str], ...]:
    try:
        if gitio.git(repo, "config", "user.email").strip():
            return ()
    except DistError:
        pass
    return IDENTITY


def _commit(repo: Path, message: str, *paths: str) -> None:
    gitio.git(repo, "add", "--", *paths)
    if not gitio.git(repo, "status", "--porcelain", "--", *paths).strip():
        return
    gitio.git(repo, "commit", "--quiet", "-m", message, "--", *paths, config=_identity(repo))


def init(folder: Path) -> None:
    if (folder / "index.yaml").exists():
        raise DistError(f"{folder}: already holds a registry (index.yaml)")
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / ".git").exists():
        gitio.git(folder, "init", "--quiet")
    write_atomic(folder / "index.yaml", _dump({"skills": []}))
    (folder / "skills").mkdir(exist_ok=True)
    write_atomic(folder / "skills" / ".keep", "")
    _commit(folder, "Start a skill registry", "index.yaml", "skills/.keep")


def _registry_repo(folder: Path) -> Path:
    if not (folder / "index.yaml").is_file():
        raise DistError(f"{folder}: not a skill registry (no index.yaml; create one with `aiagent skill registry init`)")
    if not (folder / ".git").exists():
        raise DistError(f"{folder}: not a git repository")
    return folder


def rebuild_index(repo: Path) -> None:
    """index.yaml from every ``skills/*/metadata.yaml`` and its newest version."""

    entries = []
    for meta in sorted((repo / "skills").glob("*/metadata.yaml")):
        data = load_yaml(meta, repo) or {}
        versions = sorted((p.name.removesuffix(".yaml") for p in (meta.parent / "versions").glob("*.yaml")),
                          key=parse_version)
        entries.append({"name": meta.parent.name, "description": data.get("description", ""),
                        "latest": versions[-1] if versions else "", "tags": data.get("tags", [])})
    write_atomic(repo / "index.yaml", _dump({"skills": entries}))


def register(registry: Path, url: str, commit: str, sub: str | None = None, ref: str | None = None) -> Published:
    """Add the skill at ``url`` ``commit`` (folder ``sub``) as a version of the registry."""
    repo = _registry_repo(registry)
    url, commit, sub = check_git_url(url), check_sha(commit), check_subpath(sub)
    work = Path(tempfile.mkdtemp(prefix="aiagent-publish-"))
    try:
        got = _fetch(url, commit, sub, ref, work)
    finally:
        remove(work)
    m = got.manifest
    skill_dir = repo / "skills" / m.name
    version_file = skill_dir / "versions" / f"{m.version}.yaml"
    record = {"git": url, "commit": commit, **({"path": sub} if sub else {}), **({"ref": ref} if ref else {})}
    if version_file.exists():
        old = load_yaml(version_file, repo) or {}
        if str(old.get("commit")) != commit:
            raise DistError(f"{m.name} {m.version} is already published at commit {old.get('commit')}; bump the version")
        return Published(m.name, m.version, commit, False)
    meta = {"name": m.name, "description": m.description, "author": m.author, "homepage": m.homepage,
            "license": m.license, "tags": list(m.triggers.keywords)[:16]}
    write_atomic(skill_dir / "metadata.yaml", _dump({k: v for k, v in meta.items() if v}))
    write_atomic(version_file, _dump(record))
    rebuild_index(repo)
    _commit(repo, f"Publish {m.name} {m.version}", "index.yaml", f"skills/{m.name}")
    return Published(m.name, m.version, commit, True)


def _fetch(url: str, commit: str, sub: str | None, ref: str | None, work: Path) -> sources.Fetched:
    checkout = work / "checkout"
    gitio.fetch_pinned(url, commit, checkout, ref)
    folder = sources.pick_folder(checkout, sub, url)
    manifest, warnings = sources.read_folder(folder)
    return sources.Fetched(manifest, folder, Pin(manifest.name, manifest.version, "git", ""), warnings)


def add(registry: Path, spec: str, sub: str | None = None) -> Published:
    """``registry add GIT_URL[@REF]``: the commit REF (default HEAD) names now."""

    request = parse_request(spec, Path.cwd())
    if request.kind != "git":
        raise DistError(f"{spec}: give a git URL (or a path to a git repository), optionally @REF")
    work = Path(tempfile.mkdtemp(prefix="aiagent-publish-"))
    try:
        commit = gitio.fetch_ref(request.target, request.spec, work / "checkout")
    finally:
        remove(work)
    return register(registry, request.target, commit, sub, request.spec)


def publish(registry: Path, folder: Path, url: str | None = None) -> Published:
    """``registry publish [PATH]``: the committed state of the skill folder ``PATH``."""
    folder = folder.resolve()
    if not folder.is_dir():
        raise DistError(f"{folder}: not a folder")
    top = Path(gitio.git(folder, "rev-parse", "--show-toplevel").strip())
    sub = folder.relative_to(top).as_posix() if folder != top else None
    if gitio.git(top, "status", "--porcelain", "--", sub or ".").strip():
        raise DistError(f"{folder}: has uncommitted changes; commit them first (the registry pins a commit)")
    commit = gitio.head(top)
    if url is None:
        try:
            url = gitio.git(top, "config", "--get", "remote.origin.url").strip() or None
        except DistError:
            url = None
    return register(registry, url or os.fspath(top), commit, sub)
