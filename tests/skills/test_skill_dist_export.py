"""`aiagent skill export` / `import`: portable SKILL.md skills where Claude Code, Codex and
Gemini CLI discover them; Gemini CLI itself lists what was exported."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from skill_helpers import EXAMPLES

from aiagent.agent.skills.skillmd import split_frontmatter

STYLE = """---
name: py-style
description: House style for Python. Use when writing Python.
allowed-tools: Bash Read
license: MIT
---
# Python style
Use `run_shell_command` to run ruff, or `Bash`.
```
read_file("x")
```
See references/rules.md.
"""


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    skills = root / ".agent" / "skills"
    (skills / "py-style" / "references").mkdir(parents=True)
    (root / ".git").mkdir()
    (skills / "py-style" / "SKILL.md").write_text(STYLE)
    (skills / "py-style" / "references" / "rules.md").write_text("line length 100\n")
    shutil.copytree(EXAMPLES / "word-tools", skills / "word-tools")
    (skills / "plain").mkdir()
    (skills / "plain" / "SKILL.md").write_text("---\nname: plain\ndescription: Plain notes.\n---\nKeep it short.\n")
    return root


def assert_agentskills(folder: Path) -> None:
    """The agentskills.io rules for the portable subset (seed 000 §2.4)."""
    text = (folder / "SKILL.md").read_text()
    block, body = split_frontmatter(text)
    data = yaml.safe_load(block or "")
    assert list(data) == ["name", "description"], data
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", data["name"]) and len(data["name"]) <= 64
    assert data["name"] == folder.name
    assert 0 < len(data["description"]) <= 1024 and body.strip()
    for word in ("run_shell_command", "`Bash`", "activate_skill"):
        assert word not in body.split("```")[0], word


def test_export_to_each_engine_is_portable_idempotent_and_prunes_only_ours(run_cli, proj: Path) -> None:  # noqa: ANN001
    mine = proj / ".claude" / "skills" / "hand-made"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: hand-made\ndescription: Mine.\n---\nx\n")
    proc = run_cli("skill", "export", "--engine", "all", "--builtin", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    for folder in (".claude/skills", ".agents/skills"):
        for name in ("py-style", "plain", "shell-bg"):
            assert_agentskills(proj / folder / name)
        assert (proj / folder / "py-style" / "references" / "rules.md").read_text() == "line length 100\n"
        assert not (proj / folder / "word-tools").exists()
    assert not (proj / ".gemini").exists()  # Gemini CLI reads .agents/skills: no second copy to conflict
    body = (proj / ".claude/skills/py-style/SKILL.md").read_text()
    assert "Use a shell command to run ruff" in body and 'read_file("x")' in body  # code kept, warned
    assert "not exported (SKILL.yaml only)" in proc.stderr or "SKILL.yaml only: tool count_words (starlark)" in proc.stdout
    assert "frontmatter fields not exported: allowed-tools, license" in proc.stderr
    assert "names the tool 'read_file' in a code block" in proc.stderr

    again = run_cli("skill", "export", "--engine", "claude", cwd=proj)
    assert "0 written" in again.stdout and "unchanged" in again.stdout
    shutil.rmtree(proj / ".agent" / "skills" / "plain")
    edited = proj / ".claude" / "skills" / "py-style" / "SKILL.md"
    proc = run_cli("skill", "export", "py-style", "--engine", "claude", "--prune", cwd=proj)
    assert "pruned plain" in proc.stdout and "pruned shell-bg" in proc.stdout
    assert not (proj / ".claude/skills/plain").exists() and (mine / "SKILL.md").is_file()
    edited.write_text(edited.read_text() + "my note\n")
    proc = run_cli("skill", "export", "--engine", "claude", "--prune", cwd=proj)
    assert "changed since we exported it" in proc.stdout and "my note" in edited.read_text()
    marker = json.loads((proj / ".claude/skills/.aiagent-exported.json").read_text())
    assert "hand-made" not in marker["skills"]


def test_link_mode_user_scope_and_import_back(run_cli, proj: Path, clean_env: dict[str, str]) -> None:  # noqa: ANN001
    home = Path(clean_env["HOME"])
    proc = run_cli("skill", "export", "plain", "py-style", "--engine", "codex", "--scope", "user", "--link", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    linked = home / ".agents" / "skills" / "plain"
    assert linked.is_symlink() and os.path.realpath(linked) == os.path.realpath(proj / ".agent/skills/plain")
    assert not (home / ".agents/skills/py-style").is_symlink()  # needs conversion: copied
    assert "cannot be linked" in proc.stderr
    theirs = proj / ".claude" / "skills" / "from-claude"
    theirs.mkdir(parents=True)
    (theirs / "SKILL.md").write_text("---\nname: from-claude\ndescription: A Claude skill.\n---\nDo x.\n")
    run_cli("skill", "export", "plain", "--engine", "claude", cwd=proj)
    proc = run_cli("skill", "import", "--engine", "claude", cwd=proj)
    assert proc.returncode == 0 and "imported from-claude" in proc.stdout, proc.stderr
    assert (proj / ".agent/skills/from-claude/SKILL.md").read_text() == (theirs / "SKILL.md").read_text()
    assert "plain" not in proc.stdout  # ours: never imported back
    proc = run_cli("skill", "import", "--engine", "claude", cwd=proj)
    assert "exists (--force replaces it)" in proc.stdout
    missing = run_cli("skill", "export", "nope", cwd=proj)
    assert missing.returncode == 1 and "no skill named 'nope'" in missing.stderr


def test_gemini_cli_lists_the_exported_skills(run_cli, proj: Path, clean_env: dict[str, str]) -> None:  # noqa: ANN001
    gemini = shutil.which("gemini")
    if gemini is None:
        pytest.skip("needs gemini: npm i -g @google/gemini-cli (installed by .ci/run)")
    assert run_cli("skill", "export", "--engine", "gemini", "--builtin", cwd=proj).returncode == 0
    assert run_cli("skill", "export", "plain", "--engine", "gemini", "--scope", "user", "--link", cwd=proj).returncode == 0
    home = Path(clean_env["HOME"])
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(proj): "TRUST_FOLDER"}))
    done = subprocess.run([gemini, "skills", "list"], cwd=proj, env=clean_env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    listed = done.stdout + done.stderr
    for name in ("py-style", "plain", "shell-bg"):
        assert re.search(rf"^{name} \[Enabled\]", listed, re.M), listed
    assert str(proj / ".gemini/skills/py-style/SKILL.md") in listed
    assert "House style for Python" in listed


def test_export_leaves_built_in_skills_out_unless_asked_and_later_runs_are_quiet(run_cli, proj: Path) -> None:  # noqa: ANN001
    proc = run_cli("skill", "export", "--engine", "all", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    exported = sorted(p.name for p in (proj / ".claude" / "skills").iterdir() if p.is_dir())
    assert exported == ["plain", "py-style"]  # the project's own; word-tools is SKILL.yaml only
    assert "apple-dev" not in proc.stderr and "core-tools" not in proc.stderr
    later = run_cli("skill", "list", cwd=proj)
    assert later.returncode == 0 and "note: skill" not in later.stdout and "over" not in later.stderr, later.stdout
    assert "plain" in later.stdout and "shell-bg" in later.stdout
    proc = run_cli("skill", "export", "--engine", "claude", "--builtin", cwd=proj)
    assert proc.returncode == 0 and (proj / ".claude" / "skills" / "shell-bg" / "SKILL.md").is_file()
    later = run_cli("skill", "list", cwd=proj)
    assert "note: skill" not in later.stdout and "using" not in later.stderr, later.stdout
    run = run_cli("--headless", "--provider", "ollama", "-m", "m", "-p", "hi", cwd=proj,
                  env={"OLLAMA_HOST": "http://127.0.0.1:9"})
    assert "both are project skills" not in run.stderr and " over " not in run.stderr, run.stderr
