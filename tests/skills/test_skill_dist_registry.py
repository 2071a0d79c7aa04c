"""`aiagent skill registry init|add|publish`: a team keeps its own registry, then installs
from it by name."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from dist_helpers import git, manifest


def test_team_registry_init_publish_add_and_install(run_cli, clean_env, tmp_path: Path) -> None:  # noqa: ANN001
    registry = tmp_path / "team-registry"
    assert run_cli("skill", "registry", "init", str(registry)).returncode == 0
    assert git(registry, "log", "--oneline").count("\n") == 0  # one commit
    again = run_cli("skill", "registry", "init", str(registry))
    assert again.returncode == 1 and "already holds a registry" in again.stderr

    repo = tmp_path / "skills-repo"
    (repo / "tools" / "lint-rules").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    skill = repo / "tools" / "lint-rules"
    (skill / "SKILL.yaml").write_text(manifest("lint-rules", "1.0.0", extra={"triggers": {"keywords": ["lint"]}}))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v1")
    first = git(repo, "rev-parse", "HEAD")
    proc = run_cli("skill", "registry", "publish", str(skill), "--registry", str(registry))
    assert proc.returncode == 0 and f"published lint-rules 1.0.0 at {first}" in proc.stdout, proc.stderr
    record = yaml.safe_load((registry / "skills/lint-rules/versions/1.0.0.yaml").read_text())
    assert record == {"git": str(repo), "commit": first, "path": "tools/lint-rules"}
    assert git(registry, "status", "--porcelain") == ""  # committed

    (skill / "SKILL.yaml").write_text(manifest("lint-rules", "1.0.0") + "# changed\n")
    dirty = run_cli("skill", "registry", "publish", str(skill), "--registry", str(registry))
    assert dirty.returncode == 1 and "uncommitted changes" in dirty.stderr
    git(repo, "commit", "-qam", "same version, new commit")
    clash = run_cli("skill", "registry", "publish", str(skill), "--registry", str(registry))
    assert clash.returncode == 1 and "already published at commit" in clash.stderr

    (skill / "SKILL.yaml").write_text(manifest("lint-rules", "1.1.0", extra={"triggers": {"keywords": ["lint"]}}))
    git(repo, "commit", "-qam", "v1.1")
    git(repo, "tag", "v1.1.0")
    proc = run_cli("skill", "registry", "add", f"{repo}@v1.1.0", "--path", "tools/lint-rules",
                   "--registry", str(registry))
    assert proc.returncode == 0 and "published lint-rules 1.1.0" in proc.stdout, proc.stderr
    index = yaml.safe_load((registry / "index.yaml").read_text())
    assert index["skills"][0]["latest"] == "1.1.0" and index["skills"][0]["tags"] == ["lint"]

    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[skills]\nregistry_url = "{registry}"\n')
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    found = json.loads(run_cli("skill", "search", "lint", "--json", cwd=project).stdout)
    assert [f["name"] for f in found] == ["lint-rules"]
    proc = run_cli("skill", "add", "lint-rules@~1.0", "-y", cwd=project)
    assert proc.returncode == 0, proc.stderr
    lock = yaml.safe_load((project / ".agent" / "skills.lock").read_text())["skills"]["lint-rules"]
    assert lock["version"] == "1.0.0" and lock["commit"] == first and lock["spec"] == "~1.0"


def test_untrusted_project_cannot_choose_the_registry(run_cli, clean_env, tmp_path: Path) -> None:  # noqa: ANN001
    project = tmp_path / "proj"
    (project / ".agent").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".agent" / "config.toml").write_text('[skills]\nregistry_url = "https://evil.example/reg.git"\n')
    proc = run_cli("skill", "search", "x", cwd=project)
    assert proc.returncode == 1 and "no skill registry is configured" in proc.stderr
    assert run_cli("trust", str(project)).returncode == 0
    proc = run_cli("skill", "search", "x", cwd=project)  # trusted: the project's choice applies
    assert "evil.example" in proc.stderr
