"""The built-in skills (spec §4.10 and seed 000): each loads cleanly from package data, its
own cases pass against FakeLLM under ``--strict`` rules, the portable ones stay portable,
and apple-dev's references to the security engine's iOS rules point at rules that exist."""

from __future__ import annotations

import asyncio
import re
from importlib import resources
from pathlib import Path

import pytest

from aiagent.agent.skills.lint import lint, load_one, portability
from aiagent.agent.skills.loader import Source, builtin_dir, discover
from aiagent.testing.skills import load_cases, run_cases

BUILTINS = ["apple-dev", "code-review", "core-tools", "cron", "git", "log-analysis",
            "security-base", "shell-bg", "wiki-base"]


def test_the_builtin_set_is_complete_and_loads_without_warnings() -> None:
    found = discover([Source("builtin", builtin_dir())])
    assert sorted(found.skills) == BUILTINS and not found.broken
    assert not found.warnings and not found.overrides
    for name, entry in found.skills.items():
        m = entry.manifest
        assert m.description and m.when_to_use or m.format == "md", name
        assert m.prompt is not None and len(m.prompt.system_prompt or (m.root / m.prompt.system_prompt_file).read_text()) > 600, name


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_cases_pass_and_lint_clean(name: str) -> None:
    folder = builtin_dir() / name
    cases = [c for _, c in load_cases(folder)]
    assert cases, f"{name} has no test cases"
    assert lint(folder, cases) == []
    results = asyncio.run(run_cases(folder))
    assert all(r.ok for r in results), [(r.name, r.detail) for r in results if not r.ok]


@pytest.mark.parametrize("name", ["shell-bg", "cron"])
def test_seed_skills_are_portable_skill_md(name: str) -> None:
    m, warnings = load_one(builtin_dir() / name)
    assert m.format == "md" and warnings == [] and portability(m) == []
    text = (builtin_dir() / name / "SKILL.md").read_text()
    front = text.split("---")[1]
    assert [line.split(":")[0] for line in front.strip().splitlines()] == ["name", "description"]


def test_apple_dev_references_rules_that_exist_in_the_security_engine() -> None:
    rules = resources.files("aiagent.engines.security").joinpath("rules")
    engine = rules.joinpath("sast/swift.yaml").read_text("utf-8") + rules.joinpath("apple.yaml").read_text("utf-8")
    known = set(re.findall(r"\b((?:IOS-SEC|APPLE-[A-Z]+)-\d{3})\b", engine))
    text = (builtin_dir() / "apple-dev/prompts/security.md").read_text()
    named = set(re.findall(r"\b((?:IOS-SEC|APPLE-[A-Z]+)-\d{3})\b", text))
    assert len(named) >= 10 and named <= known, named - known
    for ref in re.findall(r"\b(APPLE-[A-Z]+)-(\d{3})\.\.(\d{3})", text):  # ranges like APPLE-ATS-002..004
        assert f"{ref[0]}-{ref[1]}" in known and f"{ref[0]}-{ref[2]}" in known
    m, _ = load_one(builtin_dir() / "apple-dev")
    assert m.security_rules is None  # referenced, not copied


def test_apple_dev_triggers_on_a_swift_project(tmp_path: Path) -> None:
    from aiagent.agent.skills.triggers import TriggerContext, scan_project, why_active

    (tmp_path / "App").mkdir()
    (tmp_path / "App/ContentView.swift").write_text("import SwiftUI\n")
    (tmp_path / "Package.swift").write_text("// swift-tools-version:5.9\n")
    found = discover([Source("builtin", builtin_dir())])
    ctx = TriggerContext(scan_project(tmp_path), "headless", (), "")
    assert why_active(found.skills["apple-dev"].manifest, ctx, startup=True)
    assert not why_active(found.skills["log-analysis"].manifest, ctx, startup=True)


def test_builtin_workflows_do_not_start_starlark_for_every_session() -> None:
    from aiagent.agent.skills.catalog import SkillCatalog

    builtin = Source("builtin", builtin_dir())
    assert not SkillCatalog(discover([builtin])).uses_backend("starlark")
    example = Source("project", Path(__file__).parents[2] / "examples/skills/word-tools")
    assert SkillCatalog(discover([builtin, example])).uses_backend("starlark")
