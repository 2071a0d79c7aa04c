"""A hostile registry or skill repository: symlinks out of the skill, option-like URLs,
remote helpers, path traversal in records, huge files, git config that runs programs.
Each refuses with one line and writes nothing; the legitimate install beside it works."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from dist_helpers import git, make_registry, manifest, skill_repo


def _setup(tmp_path: Path, clean_env: dict[str, str], records: dict) -> tuple[Path, Path]:  # type: ignore[type-arg]
    registry = make_registry(tmp_path / "registry", records)
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[skills]\nregistry_url = "{registry}"\n')
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    return project, config.parent / "skills"


def _repo_with(tmp_path: Path, name: str, files: dict[str, str | None], links: dict[str, str]) -> tuple[Path, str]:
    work = tmp_path / f"work-{name}"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    (work / "SKILL.yaml").write_text(manifest(name, "1.0.0"))
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text or "")
    for rel, target in links.items():
        os.symlink(target, work / rel)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "c")
    return work, git(work, "rev-parse", "HEAD")


@pytest.mark.parametrize(("target", "why"), [("/etc/passwd", "outside the skill folder"),
                                              ("../../../../etc/hostname", "outside the skill folder")])
def test_symlink_out_of_the_skill_is_refused(run_cli, clean_env, tmp_path: Path, target: str, why: str) -> None:  # noqa: ANN001
    evil, sha = _repo_with(tmp_path, "evil", {"README.md": "hi"}, {"secret": target})
    good, good_sha = _repo_with(tmp_path, "good", {"README.md": "hi"}, {"readme-link": "README.md"})
    project, user = _setup(tmp_path, clean_env, {"evil": {"1.0.0": {"git": str(evil), "commit": sha}},
                                                  "good": {"1.0.0": {"git": str(good), "commit": good_sha}}})
    proc = run_cli("skill", "install", "evil", "-y", cwd=project)
    assert proc.returncode == 1 and why in proc.stderr and proc.stderr.count("\n") == 1
    assert not user.exists() or list(user.iterdir()) == []
    assert run_cli("skill", "install", "good", "-y", cwd=project).returncode == 0
    assert os.readlink(user / "good" / "readme-link") == "README.md"  # a link inside the skill is kept


@pytest.mark.parametrize(("record", "why"), [
    ({"path": "../.."}, "must be a folder inside the repository"),
    ({"git": "--upload-pack=touch PWNED"}, "is not a git URL"),
    ({"git": "ext::sh -c touch% PWNED"}, "is not a git URL"),
    ({"commit": "abc123"}, "not a full commit id"),
])
def test_hostile_version_records_are_refused(run_cli, clean_env, tmp_path: Path, record: dict, why: str) -> None:  # noqa: ANN001
    repo, shas = skill_repo(tmp_path / "repos", "alpha", {"1.0.0": manifest("alpha", "1.0.0")})
    bad = {"git": str(repo), "commit": shas["1.0.0"], **record}
    project, user = _setup(tmp_path, clean_env, {"evil": {"1.0.0": bad},
                                                  "alpha": {"1.0.0": {"git": str(repo), "commit": shas["1.0.0"]}}})
    proc = run_cli("skill", "install", "evil", "-y", cwd=project)
    assert proc.returncode == 1 and why in proc.stderr, proc.stderr
    assert not (project / "PWNED").exists() and not (tmp_path / "PWNED").exists()
    assert run_cli("skill", "install", "alpha", "-y", cwd=project).returncode == 0


def test_version_file_that_is_a_symlink_is_not_read(run_cli, clean_env, tmp_path: Path) -> None:  # noqa: ANN001
    repo, shas = skill_repo(tmp_path / "repos", "alpha", {"1.0.0": manifest("alpha", "1.0.0")})
    registry = tmp_path / "registry"
    project, _ = _setup(tmp_path, clean_env, {"alpha": {"1.0.0": {"git": str(repo), "commit": shas["1.0.0"]}}})
    os.symlink("/etc/hostname", registry / "skills" / "alpha" / "versions" / "2.0.0.yaml")
    git(registry, "add", "-A")
    git(registry, "commit", "-qm", "link")
    proc = run_cli("skill", "install", "alpha@2.0.0", "-y", cwd=project)
    assert proc.returncode == 1 and "no version matches" in proc.stderr
    assert run_cli("skill", "install", "alpha", "-y", cwd=project).returncode == 0


def test_huge_file_is_refused(run_cli, clean_env, tmp_path: Path) -> None:  # noqa: ANN001
    big, sha = _repo_with(tmp_path, "big", {"assets/blob.bin": "x" * (11 * 1024 * 1024)}, {})
    project, user = _setup(tmp_path, clean_env, {"big": {"1.0.0": {"git": str(big), "commit": sha}}})
    proc = run_cli("skill", "install", "big", "-y", cwd=project)
    assert proc.returncode == 1 and "more than 10 MB per file" in proc.stderr
    assert not user.exists() or list(user.iterdir()) == []


def test_git_config_and_hooks_of_a_hostile_repository_run_nothing(run_cli, clean_env, tmp_path: Path) -> None:  # noqa: ANN001
    """A local skill repository and a local registry whose own config names programs
    (fsmonitor, filters, hooks, upload-pack hook): installing from, publishing from and
    committing to them must run none of them."""
    pwned = tmp_path / "PWNED"
    work, sha = _repo_with(tmp_path, "evil", {".gitattributes": "* filter=evil diff=evil\n"}, {})
    registry = tmp_path / "team-registry"
    assert run_cli("skill", "registry", "init", str(registry)).returncode == 0
    for repo in (work, registry):
        with open(repo / ".git" / "config", "a") as cfg:
            cfg.write(f'[core]\n\tfsmonitor = "touch {pwned}"\n[filter "evil"]\n\tsmudge = touch {pwned}\n'
                      f'\tclean = touch {pwned}\n[diff "evil"]\n\ttextconv = touch {pwned}\n'
                      f'[uploadpack]\n\tpackObjectsHook = touch {pwned}\n')
        hook = repo / ".git" / "hooks" / "pre-commit"
        hook.write_text(f"#!/bin/sh\ntouch {pwned}\n")
        hook.chmod(0o755)
        (repo / ".git" / "hooks" / "post-checkout").write_text(f"#!/bin/sh\ntouch {pwned}\n")
        (repo / ".git" / "hooks" / "post-checkout").chmod(0o755)
    proc = run_cli("skill", "registry", "publish", str(work), "--registry", str(registry))
    assert proc.returncode == 0, proc.stderr
    project, user = _setup(tmp_path / "w", clean_env, {})
    (Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml").write_text(
        f'[skills]\nregistry_url = "{registry}"\n')
    proc = run_cli("skill", "install", "evil", "-y", cwd=project)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("skill", "install", str(work), "-y", "--force", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert not pwned.exists(), "a program named by the repository's git config ran"
    assert yaml.safe_load((user / "evil" / "SKILL.yaml").read_text())["name"] == "evil"
