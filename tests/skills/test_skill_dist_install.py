"""`aiagent skill install/add/remove/update/outdated/search`, driven as the real command
against a git registry and bare skill repositories made in the test."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from dist_helpers import commit_all, git, make_registry, manifest, skill_repo

BAD_SHA = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class World:
    root: Path  # tmp
    project: Path
    registry: Path
    user_skills: Path
    repos: dict[str, Path]
    shas: dict[str, dict[str, str]]


@pytest.fixture
def world(tmp_path: Path, clean_env: dict[str, str]) -> World:
    repos_dir = tmp_path / "repos"
    repos_dir.mkdir()
    repos, shas = {}, {}
    specs = {
        "alpha": {"1.0.0": manifest("alpha", "1.0.0"), "1.1.0": manifest("alpha", "1.1.0")},
        "beta": {"2.0.0": manifest("beta", "2.0.0", deps=[{"name": "alpha", "version": "^1.0"}], extra={
            "types": ["prompt", "tool"], "permissions": ["file:read"],
            "implementation": {"backend": "process", "command": ["python3", "skill.py"]},
            "tools": [{"name": "beta_tool", "description": "d"}]})},
        "broken": {"1.0.0": manifest("broken", "1.0.0", extra={"permissions": ["teleport"]})},
        "liar": {"1.0.0": manifest("liar", "1.0.0")},
        "gamma": {"1.0.0": manifest("gamma", "1.0.0", deps=[{"name": "alpha", "version": "^2"}])},
    }
    for name, versions in specs.items():
        repos[name], shas[name] = skill_repo(repos_dir, name, versions)

    def rec(name: str, version: str, **over: object) -> dict[str, object]:
        return {"git": str(repos[name]), "commit": shas[name][version], **over}

    registry = make_registry(tmp_path / "registry", {
        "alpha": {"1.0.0": rec("alpha", "1.0.0", ref="v1.0.0"), "1.1.0": rec("alpha", "1.1.0")},
        "beta": {"2.0.0": rec("beta", "2.0.0")},
        "broken": {"1.0.0": rec("broken", "1.0.0")},
        "liar": {"1.0.0": rec("liar", "1.0.0", commit=BAD_SHA)},
        "gamma": {"1.0.0": rec("gamma", "1.0.0")},
        "tagliar": {"1.0.0": {"git": str(repos["alpha"]), "commit": shas["alpha"]["1.1.0"], "ref": "v1.0.0"}},
    }, index_extra=[{"name": "../../escape", "description": "hostile"}])
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[skills]\nregistry_url = "{registry}"\n')
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    return World(tmp_path, project, registry, config.parent / "skills", repos, shas)


def _nothing_written(folder: Path) -> None:
    leftovers = [p.name for p in folder.iterdir()] if folder.exists() else []
    assert leftovers == [], leftovers


def test_install_from_registry_with_dependency_shows_permissions_and_backend(run_cli, world: World) -> None:  # noqa: ANN001
    proc = run_cli("skill", "install", "beta", "--yes", cwd=world.project)
    assert proc.returncode == 0, proc.stderr
    assert "backend: process" in proc.stdout and "runs: python3 skill.py" in proc.stdout
    assert "permissions: file:read" in proc.stdout and "needed by: beta needs ^1.0" in proc.stdout
    assert (world.user_skills / "beta" / "SKILL.yaml").is_file()
    receipt = json.loads((world.user_skills / "alpha" / ".aiagent-install.json").read_text())
    assert receipt["version"] == "1.1.0" and receipt["commit"] == world.shas["alpha"]["1.1.0"]
    assert not (world.user_skills / "alpha" / ".git").exists()
    rows = {r["name"]: r for r in json.loads(run_cli("skill", "list", "--json", cwd=world.project).stdout)}
    assert rows["beta"]["version"] == "2.0.0" and rows["alpha"]["source"] == "user"


def test_install_exact_version_and_range(run_cli, world: World) -> None:  # noqa: ANN001
    assert run_cli("skill", "install", "alpha@1.0.0", "-y", cwd=world.project).returncode == 0
    assert "version: 1.0.0" in (world.user_skills / "alpha" / "SKILL.yaml").read_text()
    proc = run_cli("skill", "install", "alpha@^1.0", "-y", cwd=world.project)
    assert proc.returncode == 0 and "replaces 1.0.0" in proc.stdout
    assert "version: 1.1.0" in (world.user_skills / "alpha" / "SKILL.yaml").read_text()


def test_install_asks_and_nothing_is_written_when_not_confirmed(run_cli, world: World) -> None:  # noqa: ANN001
    proc = run_cli("skill", "install", "beta", cwd=world.project)  # stdin empty: no answer
    assert proc.returncode == 1 and "not confirmed" in proc.stderr
    _nothing_written(world.user_skills)
    proc = run_cli("skill", "install", "alpha", cwd=world.project, input="y\n")
    assert proc.returncode == 0 and (world.user_skills / "alpha").is_dir()


@pytest.mark.parametrize(("spec", "message"), [
    ("liar", f"commit {BAD_SHA} is not in the repository; refusing to install"),
    ("tagliar", "v1.0.0 is "),
    ("broken", "manifest is invalid"),
    ("nosuch", "no skill named 'nosuch' in registry"),
    ("alpha@9.9.9", "no version matches '9.9.9'"),
    ("gamma", "dependency alpha ^2"),
    ("../x", "no such folder"),
])
def test_bad_installs_are_one_line_errors_and_write_nothing(run_cli, world: World, spec: str, message: str) -> None:  # noqa: ANN001
    proc = run_cli("skill", "install", spec, "-y", cwd=world.project)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("aiagent: error: ") and "Traceback" not in proc.stderr
    _nothing_written(world.user_skills)
    ok = run_cli("skill", "install", "alpha", "-y", cwd=world.project)  # the legitimate use still works
    assert ok.returncode == 0, ok.stderr


def test_registry_that_is_not_git_and_unreachable_url(run_cli, world: World, tmp_path: Path) -> None:  # noqa: ANN001
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "index.yaml").write_text("skills: []\n")
    proc = run_cli("skill", "install", "alpha", "-y", cwd=world.project,
                   env={"XDG_CONFIG_HOME": str(_config(tmp_path / "c1", plain))})
    assert proc.returncode == 1 and "is not a git repository" in proc.stderr and proc.stderr.count("\n") == 1
    proc = run_cli("skill", "install", "http://127.0.0.1:9/skill.git", "-y", cwd=world.project)
    assert proc.returncode == 1 and "cannot fetch http://127.0.0.1:9/skill.git" in proc.stderr
    assert proc.stderr.count("\n") == 1
    _nothing_written(world.user_skills)


def _config(folder: Path, registry: Path) -> Path:
    (folder / "aiagent").mkdir(parents=True)
    (folder / "aiagent" / "config.toml").write_text(f'[skills]\nregistry_url = "{registry}"\n')
    return folder


def test_install_from_bare_git_repo_file_url_and_folder(run_cli, world: World, tmp_path: Path) -> None:  # noqa: ANN001
    proc = run_cli("skill", "install", f"file://{world.repos['alpha']}@v1.0.0", "-y", cwd=world.project)
    assert proc.returncode == 0, proc.stderr
    pin = json.loads((world.user_skills / "alpha" / ".aiagent-install.json").read_text())
    assert pin["source"] == "git" and pin["commit"] == world.shas["alpha"]["1.0.0"] and pin["ref"] == "v1.0.0"
    assert run_cli("skill", "install", str(world.repos["gamma"]), "-y", "--project", cwd=world.project).returncode == 1
    folder = tmp_path / "my-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: my-skill\ndescription: Mine.\n---\nDo it.\n")
    proc = run_cli("skill", "add", str(folder), "-y", cwd=world.project)
    assert proc.returncode == 0, proc.stderr
    assert (world.project / ".agent" / "skills" / "my-skill" / "SKILL.md").is_file()
    (tmp_path / "file-skill").write_text("not a folder")
    proc = run_cli("skill", "install", str(tmp_path / "file-skill"), "-y", cwd=world.project)
    assert proc.returncode == 1 and "is a file" in proc.stderr


def test_lock_file_round_trip(run_cli, world: World) -> None:  # noqa: ANN001
    assert run_cli("skill", "add", "beta", "-y", cwd=world.project).returncode == 0
    lock = yaml.safe_load((world.project / ".agent" / "skills.lock").read_text())
    assert set(lock["skills"]) == {"alpha", "beta"}
    assert lock["skills"]["beta"]["commit"] == world.shas["beta"]["2.0.0"]
    skills = world.project / ".agent" / "skills"
    before = {p.relative_to(skills).as_posix(): p.read_bytes() for p in skills.rglob("*") if p.is_file()}
    git(world.project, "init", "-q")  # a teammate's fresh checkout: the lock, no skills
    for name in ("alpha", "beta"):
        (skills / name / "SKILL.yaml").unlink()
        (skills / name / ".aiagent-install.json").unlink()
        (skills / name).rmdir()
    proc = run_cli("skill", "install", "-y", cwd=world.project)
    assert proc.returncode == 0, proc.stderr
    after = {p.relative_to(skills).as_posix(): p.read_bytes() for p in skills.rglob("*") if p.is_file()}
    assert after == before
    again = run_cli("skill", "install", "-y", cwd=world.project)
    assert "alpha: as locked" in again.stdout
    # a lock whose digest does not match what the commit holds is refused
    text = (world.project / ".agent" / "skills.lock").read_text()
    (world.project / ".agent" / "skills.lock").write_text(text.replace(lock["skills"]["alpha"]["digest"], "sha256:" + "0" * 64))
    (skills / "alpha" / ".aiagent-install.json").unlink()
    proc = run_cli("skill", "install", "-y", cwd=world.project)
    assert proc.returncode == 1 and "differs from the lock file" in proc.stderr


def test_remove_refuses_a_needed_dependency_then_removes(run_cli, world: World) -> None:  # noqa: ANN001
    assert run_cli("skill", "add", "beta", "-y", cwd=world.project).returncode == 0
    proc = run_cli("skill", "remove", "alpha", "--project", cwd=world.project)
    assert proc.returncode == 1 and "needed by beta" in proc.stderr
    assert run_cli("skill", "remove", "beta", "--project", cwd=world.project).returncode == 0
    assert run_cli("skill", "remove", "alpha", "--project", cwd=world.project).returncode == 0
    assert not (world.project / ".agent" / "skills" / "alpha").exists()
    assert yaml.safe_load((world.project / ".agent" / "skills.lock").read_text())["skills"] == {}
    proc = run_cli("skill", "remove", "alpha", cwd=world.project)
    assert proc.returncode == 1 and "not installed" in proc.stderr


def test_outdated_and_update_follow_the_registry(run_cli, world: World) -> None:  # noqa: ANN001
    assert run_cli("skill", "install", "alpha@1.0.0", "-y", cwd=world.project).returncode == 0
    rows = json.loads(run_cli("skill", "outdated", "--json", cwd=world.project).stdout)
    assert rows == [{"name": "alpha", "installed": "1.0.0", "wanted": "1.0.0", "latest": "1.1.0", "where": "user"}]
    assert run_cli("skill", "install", "alpha@^1", "-y", cwd=world.project).returncode == 0
    # the registry gains 1.2.0: seen only after --refresh (the cache lives an hour)
    _, shas = skill_repo(world.root / "more", "alpha", {"1.2.0": manifest("alpha", "1.2.0")})
    versions = world.registry / "skills" / "alpha" / "versions"
    (versions / "1.2.0.yaml").write_text(yaml.safe_dump({"git": str(world.root / "more" / "alpha.git"),
                                                         "commit": shas["1.2.0"]}))
    commit_all(world.registry)
    assert "up to date" in run_cli("skill", "outdated", cwd=world.project).stdout
    assert "1.2.0" in run_cli("skill", "outdated", "--refresh", cwd=world.project).stdout
    proc = run_cli("skill", "update", "-y", cwd=world.project)
    assert proc.returncode == 0 and "updated alpha to 1.2.0" in proc.stdout, proc.stderr


def test_search_and_list_available(run_cli, world: World) -> None:  # noqa: ANN001
    proc = run_cli("skill", "search", "alp", "--json", cwd=world.project)
    assert [e["name"] for e in json.loads(proc.stdout)] == ["alpha"]
    proc = run_cli("skill", "list", "--available", cwd=world.project)
    assert proc.returncode == 0 and "beta" in proc.stdout and "escape" not in proc.stdout
    assert "is not a skill name" in proc.stderr  # the hostile index entry, reported and ignored
    assert "no skill in the registry" in run_cli("skill", "search", "zzz", cwd=world.project).stdout
