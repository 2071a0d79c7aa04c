"""Discovery from every source (later wins), bounded scans, dependency order, triggers."""

from __future__ import annotations

from pathlib import Path

import pytest
from skill_helpers import FIXTURES

from aiagent.agent.skills.config import SkillConfigError, disabled_names
from aiagent.agent.skills.deps import resolve
from aiagent.agent.skills.loader import (
    MAX_PER_SOURCE,
    Source,
    default_sources,
    discover,
    skill_folders,
)
from aiagent.agent.skills.manifest import Manifest
from aiagent.agent.skills.triggers import (
    TriggerContext,
    files_match,
    keyword_match,
    scan_project,
    why_active,
)
from aiagent.agent.skills.versions import satisfies


def skill(folder: Path, name: str, description: str = "d", extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.yaml").write_text(f"name: {name}\nversion: 1.0.0\ndescription: {description}\ntypes: [prompt]\n{extra}")
    return folder


def test_all_sources_later_wins(tmp_path: Path) -> None:
    home, project, config = tmp_path / "home", tmp_path / "proj", tmp_path / "home/.config/aiagent"
    skill(home / ".claude/skills/claude-one", "claude-one")
    skill(home / ".agents/skills/shared", "shared", "from the user's .agents")
    skill(config / "skills/shared", "shared", "from the user's config")
    skill(project / ".agents/skills/codex-one", "codex-one")
    skill(project / ".claude/skills/group/nested", "nested")  # one level of grouping
    skill(project / ".agent/skills/shared", "shared", "from the project")
    (project / "AGENT.md").write_text("---\nskills: [./extra/inline-one, git]\n---\n# rules\n")
    skill(project / "extra/inline-one", "inline-one")
    found = discover(default_sources(project, project, config, home))
    assert {"claude-one", "codex-one", "nested", "inline-one", "shell-bg"} <= set(found.skills)
    shared = found.skills["shared"]
    assert shared.source == "project" and shared.manifest.description == "from the project"
    assert len(shared.shadows) == 2
    assert found.skills["inline-one"].source == "inline"
    assert found.skills["shell-bg"].source == "builtin"


def test_broken_skills_are_kept_with_their_error() -> None:
    found = discover([Source("project", FIXTURES)])
    broken = {b.name: b.error for b in found.broken}
    assert "broken" in broken and "permissions[1]" in broken["broken"] and "SKILL.yaml" in broken["broken"]
    assert "no-read" in found.skills


def test_scan_is_bounded(tmp_path: Path) -> None:
    for i in range(MAX_PER_SOURCE + 5):
        skill(tmp_path / f"s{i:03d}", f"s{i:03d}")
    skill(tmp_path / "a/b/c/too-deep", "too-deep")
    found = skill_folders(tmp_path)
    assert len(found) == MAX_PER_SOURCE and not any(p.name == "too-deep" for p in found)


def manifests(folder: Path) -> dict[str, Manifest]:
    return {n: e.manifest for n, e in discover([Source("project", folder)]).skills.items()}


def test_dependency_cycle_and_missing_reported_with_chain() -> None:
    found = manifests(FIXTURES)
    plan = resolve(["cycle-a", "dep-missing"], found)
    assert plan.errors["cycle-a"] == "dependency cycle: cycle-a -> cycle-b -> cycle-a"
    assert plan.errors["dep-missing"] == "needs also-missing, not installed (dep-missing -> also-missing)"
    assert any("optional dependency not-installed skipped" in n for n in plan.notes)


def test_dependencies_activate_first(tmp_path: Path) -> None:
    skill(tmp_path / "base", "base")
    skill(tmp_path / "mid", "mid", extra="dependencies: [{name: base, version: '^1.0'}]\n")
    skill(tmp_path / "top", "top", extra="dependencies: [{name: mid}, {name: base, version: '>=2', optional: true}]\n")
    plan = resolve(["top"], manifests(tmp_path))
    assert plan.order == ["base", "mid", "top"] and not plan.errors and len(plan.notes) == 1


@pytest.mark.parametrize(("version", "spec", "ok"), [
    ("1.2.3", ">=1.0.0", True), ("2.0.0", "^1.2", False), ("1.9.0", "^1.2", True),
    ("0.2.9", "~0.2", True), ("0.3.0", "~0.2.1", False), ("1.5.0", ">=1.0, <2", True),
    ("1.4.0", "1.x", True), ("3.0.0", "*", True), ("1.0.0", "==1.0.0", True),
])
def test_version_ranges(version: str, spec: str, ok: bool) -> None:
    assert satisfies(version, spec) is ok


def test_project_scan_honours_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    for rel in ("src/app.py", "src/util.py", "k8s/deploy.yaml", "build/out.sql", "debug.log", "Dockerfile"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/.gitignore").write_text("secret.sql\n")
    (tmp_path / "sub/secret.sql").write_text("x")
    facts = scan_project(tmp_path)
    assert "build/out.sql" not in facts.files and "debug.log" not in facts.files
    assert "sub/secret.sql" not in facts.files
    assert facts.languages[0] == "python" and "dockerfile" in facts.languages
    assert files_match(["*.sql"], facts.files) is None
    assert files_match(["k8s/"], facts.files) == "k8s/deploy.yaml"
    assert files_match(["Dockerfile"], facts.files) == "Dockerfile"


def test_triggers(tmp_path: Path) -> None:
    m = manifests(FIXTURES)["kw-prompt"]
    ctx = TriggerContext(None, "headless", (), "Please name the zebra-free variables")
    assert why_active(m, ctx, startup=False) is None  # whole words only
    ctx.user_message = "Any ZEBRA rules?"
    assert why_active(m, ctx, startup=False) == "keyword 'zebra'"
    assert why_active(m, TriggerContext(explicit=("kw-prompt",)), startup=True) == "requested"
    assert keyword_match(["merge conflict"], "I have a Merge  conflict") is None
    assert keyword_match(["merge conflict"], "fix this merge conflict!") == "merge conflict"


def test_presets_and_disabled() -> None:
    names = ["a", "b", "c"]
    table = {"disabled": ["a"], "preset": "lean", "presets": {"lean": {"enabled": ["a", "b"]}}, "enabled": ["b"]}
    assert disabled_names(table, names) == {"a", "c"}
    with pytest.raises(SkillConfigError, match="skills.preset"):
        disabled_names({"preset": "nope"}, names)
