"""Helpers for the distribution tests: real git repositories of skills and a real git
registry with the spec §4.12 layout, all made in the test's folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def manifest(name: str, version: str, *, deps: list[dict[str, str]] | None = None,
             extra: dict[str, object] | None = None) -> str:
    data: dict[str, object] = {
        "name": name, "version": version, "description": f"{name} skill, version {version}",
        "types": ["prompt"], "prompt": {"system_prompt": f"You know about {name} {version}."},
    }
    if deps:
        data["dependencies"] = deps
    data.update(extra or {})
    return yaml.safe_dump(data, sort_keys=False)


def skill_repo(base: Path, name: str, versions: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """A bare repository ``base/name.git`` with one commit (tagged vX.Y.Z) per version,
    each holding ``SKILL.yaml`` = the given text. Returns its path and version -> SHA."""
    work = base / f"work-{name}"
    work.mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    shas = {}
    for version, text in versions.items():
        (work / "SKILL.yaml").write_text(text)
        git(work, "add", "-A")
        git(work, "commit", "-qm", f"{name} {version}")
        git(work, "tag", f"v{version}")
        shas[version] = git(work, "rev-parse", "HEAD")
    bare = base / f"{name}.git"
    git(base, "clone", "-q", "--bare", str(work), str(bare))
    return bare, shas


def make_registry(folder: Path, records: dict[str, dict[str, dict[str, object]]],
                  index_extra: list[dict[str, object]] | None = None) -> Path:
    """A git registry: records = {name: {version: {git, commit, ...}}}."""
    folder.mkdir(parents=True)
    entries = []
    for name, versions in records.items():
        skill = folder / "skills" / name
        (skill / "versions").mkdir(parents=True)
        (skill / "metadata.yaml").write_text(yaml.safe_dump({"name": name, "description": f"the {name} skill"}))
        for version, record in versions.items():
            (skill / "versions" / f"{version}.yaml").write_text(yaml.safe_dump(record))
        entries.append({"name": name, "description": f"the {name} skill", "latest": list(versions)[-1],
                        "tags": ["demo"]})
    (folder / "index.yaml").write_text(yaml.safe_dump({"skills": [*entries, *(index_extra or [])]}))
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "registry")
    return folder


def commit_all(folder: Path, message: str = "update") -> None:
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", message)
