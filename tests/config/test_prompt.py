from __future__ import annotations

from pathlib import Path

from aiagent.agent.core.prompt import build_system_prompt, read_rules, rule_files


def test_agent_md_and_agents_md_go_into_the_prompt(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    sub = root / "pkg"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "AGENT.md").write_text("Use tabs.")
    (sub / "AGENTS.md").write_text("Run make test before finishing.")
    user = tmp_path / "user"
    user.mkdir()
    (user / "AGENT.md").write_text("Answer in English.")
    files = rule_files(sub, root, user)
    assert files == [user / "AGENT.md", root / "AGENT.md", sub / "AGENTS.md"]
    prompt = build_system_prompt(sub, rules=read_rules(files))
    assert prompt.index("Answer in English.") < prompt.index("Use tabs.") < prompt.index("make test")
    assert str(sub) in prompt


def test_rules_outside_the_project_are_ignored(tmp_path: Path) -> None:
    (tmp_path / "AGENT.md").write_text("outer")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    assert rule_files(root, root, None) == []
