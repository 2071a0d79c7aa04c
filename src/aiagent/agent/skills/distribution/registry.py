"""Reading a skill registry (spec §4.12): a git repository holding

    index.yaml                        skills: [{name, description, latest, tags}]
    skills/NAME/metadata.yaml         name, description, author, homepage, tags
    skills/NAME/versions/X.Y.Z.yaml   git: URL, commit: full SHA, path: subfolder, ref: tag

It is cloned into the user's data folder and fetched again when older than
``[skills] registry_ttl`` (or on ``--refresh``). Its content is untrusted: names and
versions are checked before they become paths, files are read only from inside the clone
(never through a symlink), and sizes are capped.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aiagent.agent.skills.config import SkillConfigError, duration
from aiagent.agent.skills.distribution import gitio
from aiagent.agent.skills.distribution.fstree import remove, staging_dir, swap_in, write_atomic
from aiagent.agent.skills.distribution.names import (
    DistError,
    check_git_url,
    check_name,
    check_ref,
    check_sha,
    check_subpath,
    check_version,
)
from aiagent.infra.config import paths

MAX_YAML = 32 * 1024 * 1024
DEFAULT_TTL = 3600.0


@dataclass(frozen=True, slots=True)
class IndexEntry:
    name: str
    description: str = ""
    latest: str = ""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VersionRecord:
    name: str
    version: str
    git: str
    commit: str
    path: str | None = None
    ref: str | None = None


@dataclass(slots=True)
class Index:
    entries: list[IndexEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_yaml(path: Path, root: Path, limit: int = MAX_YAML) -> Any:
    """Parse ``path`` (inside ``root``, not a symlink) as YAML, or raise :class:`DistError`."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    real = Path(os.path.realpath(path))
    if path.is_symlink() or not real.is_relative_to(Path(os.path.realpath(root))):
        raise DistError(f"{path}: a symlink in the registry; refusing to read it")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DistError(f"{path}: missing from the registry") from None
    except OSError as exc:
        raise DistError(f"{path}: cannot read: {exc.strerror}") from None
    if len(raw) > limit:
        raise DistError(f"{path}: larger than {limit // (1024 * 1024)} MB")
    try:
        return yaml.load(raw.decode("utf-8"), Loader=loader)  # noqa: S506 - a safe loader
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DistError(f"{path}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None


def parse_index(data: Any, where: str) -> Index:
    index = Index()
    items = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise DistError(f"{where}: expected `skills:` with a list of entries")
    for i, item in enumerate(items):
        try:
            index.entries.append(_entry(item, f"{where}: skills[{i}]"))
        except DistError as exc:
            index.warnings.append(str(exc))
    return index


def _entry(item: Any, where: str) -> IndexEntry:
    if not isinstance(item, dict):
        raise DistError(f"{where}: expected a mapping")
    name = check_name(str(item.get("name", "")), f"{where}.name")
    latest = str(item.get("latest") or "")
    if latest:
        check_version(latest, f"{where}.latest")
    tags = item.get("tags") or []
    tags = tuple(str(t)[:64] for t in tags[:32]) if isinstance(tags, list) else ()
    return IndexEntry(name, " ".join(str(item.get("description") or "").split())[:1024], latest, tags)


def parse_record(data: Any, name: str, version: str, where: str) -> VersionRecord:
    if not isinstance(data, dict):
        raise DistError(f"{where}: expected a mapping with git and commit")
    url = data.get("git") or data.get("url")
    if not url:
        raise DistError(f"{where}: git: missing")
    return VersionRecord(
        name, version, check_git_url(str(url), f"{where}: git"),
        check_sha(str(data.get("commit") or data.get("sha") or ""), f"{where}: commit"),
        check_subpath(data.get("path"), f"{where}: path"),
        check_ref(str(data["ref"]), f"{where}: ref") if data.get("ref") else None,
    )


def from_settings(settings: Any, refresh: bool = False) -> Registry:
    """The registry ``[skills] registry_url`` names, synced (see :meth:`Registry.sync`)."""

    table = settings.skills
    url = table.registry_url
    if not url:
        raise DistError("no skill registry is configured: set [skills] registry_url (a git URL or a folder)")
    try:
        ttl = duration(table.registry_ttl, DEFAULT_TTL, "skills.registry_ttl")
    except SkillConfigError as exc:
        raise DistError(str(exc)) from None
    cache = paths.data_dir(settings.env) / "registries"
    return Registry.from_location(str(url), settings.workspace, cache, ttl).sync(refresh)


def cache_key(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:16]


class Registry:
    """One registry, cloned under ``cache_root`` (see the module doc)."""

    def __init__(self, url: str, cache_root: Path, ttl: float = DEFAULT_TTL) -> None:
        self.url = url
        self.home = cache_root / cache_key(url)
        self.repo = self.home / "repo"
        self.ttl = ttl
        self._index: Index | None = None

    @classmethod
    def from_location(cls, location: str, cwd: Path, cache_root: Path, ttl: float) -> Registry:
        text = location.strip()
        if "://" not in text and not text.startswith("git@"):
            text = str((cwd / Path(text).expanduser()).resolve())
        return cls(check_git_url(text, "[skills] registry_url"), cache_root, ttl)

    def stale(self) -> bool:
        try:
            return time.time() - (self.home / "fetched").stat().st_mtime > self.ttl
        except OSError:
            return True

    def sync(self, refresh: bool = False) -> Registry:
        """Clone or fetch the registry when the cache is missing, stale or ``refresh``."""
        if not refresh and not self.stale() and self.repo.is_dir():
            return self
        stage = staging_dir(self.home)
        try:
            gitio.fetch_ref(self.url, None, stage / "repo")
            index = self._read_index(stage / "repo")
            write_atomic(stage / "repo.index.json", json.dumps(
                {"entries": [asdict(e) for e in index.entries], "warnings": index.warnings}))
            swap_in(stage / "repo", self.repo)
            os.replace(stage / "repo.index.json", self.home / "index.json")
        except DistError as exc:
            raise DistError(self._explain(exc)) from None
        finally:
            remove(stage)
        (self.home / "fetched").write_text(self.url + "\n", encoding="utf-8")
        self._index = None
        return self

    def _explain(self, exc: DistError) -> str:
        text = str(exc)
        local = Path(self.url.removeprefix("file://"))
        if local.is_absolute() and not local.exists():
            return f"registry {self.url}: no such folder"
        if local.is_absolute() and "does not exist" in text:
            return f"registry {self.url} is not a git repository"
        if "does not appear to be a git repository" in text or "not a git repository" in text:
            return f"registry {self.url} is not a git repository"
        if "repository is empty" in text:
            return f"registry {self.url} has no commits"
        return f"registry {self.url}: {text.removeprefix(f'cannot fetch {self.url}: ')}"

    def _read_index(self, repo: Path) -> Index:
        return parse_index(load_yaml(repo / "index.yaml", repo), f"{self.url}: index.yaml")

    def index(self) -> Index:
        if self._index is None:
            try:
                data = json.loads((self.home / "index.json").read_text("utf-8"))
                self._index = Index([IndexEntry(e["name"], e["description"], e["latest"], tuple(e["tags"]))
                                     for e in data["entries"]], list(data["warnings"]))
            except (OSError, ValueError, KeyError, TypeError):
                self._index = self._read_index(self.repo)
        return self._index

    def search(self, text: str) -> list[IndexEntry]:
        needle = text.lower().strip()
        scored: list[tuple[int, str, IndexEntry]] = []
        for e in self.index().entries:
            if needle == e.name:
                score = 0
            elif needle in e.name:
                score = 1
            elif needle in e.description.lower() or any(needle in t.lower() for t in e.tags):
                score = 2
            else:
                continue
            scored.append((score, e.name, e))
        return [e for _, _, e in sorted(scored, key=lambda s: (s[0], s[1]))]

    def skill_dir(self, name: str) -> Path:
        return self.repo / "skills" / check_name(name)

    def versions(self, name: str) -> list[str]:
        """Every version of ``name`` the registry lists, oldest first."""
        from aiagent.agent.skills.versions import parse_version

        folder = self.skill_dir(name) / "versions"
        if folder.is_symlink() or not folder.is_dir():
            known = ", ".join(sorted(e.name for e in self.index().entries)[:20]) or "none"
            raise DistError(f"no skill named {name!r} in registry {self.url} (known: {known})")
        found = []
        for file in folder.iterdir():
            stem = file.name.removesuffix(".yaml")
            if file.name.endswith(".yaml") and not file.is_symlink():
                try:
                    found.append(check_version(stem))
                except DistError:
                    continue
        return sorted(found, key=parse_version)

    def pick(self, name: str, spec: str | None) -> VersionRecord:
        """The newest version of ``name`` that ``spec`` (a version or range) allows."""
        from aiagent.agent.skills.versions import VersionError, satisfies

        versions = self.versions(name)
        try:
            fitting = [v for v in versions if satisfies(v, spec)]
        except VersionError as exc:
            raise DistError(f"{name}@{spec}: {exc}") from None
        if not fitting:
            raise DistError(f"{name}: no version matches {spec!r} in registry {self.url} (has: {', '.join(versions) or 'none'})")
        return self.record(name, fitting[-1])

    def record(self, name: str, version: str) -> VersionRecord:
        check_version(version)
        file = self.skill_dir(name) / "versions" / f"{version}.yaml"
        rel = f"skills/{name}/versions/{version}.yaml"
        return parse_record(load_yaml(file, self.repo, 1024 * 1024), name, version, f"{self.url}: {rel}")
