"""The real `aiagent` command: skill management, workflows, and a headless run where a
keyword triggers a prompt skill and the model calls a Starlark tool (FakeLLM)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from skill_helpers import EXAMPLES, FIXTURES

from aiagent.testing import FakeLLM, ToolCall, Turn

ANTHROPIC = {"ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def make_proj(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    skills = root / ".agent" / "skills"
    for name in ("word-tools", "python-style", "release-notes"):
        shutil.copytree(EXAMPLES / name, skills / name)
    for name in ("kw-prompt", "broken", "no-read"):
        shutil.copytree(FIXTURES / name, skills / name)
    (root / "notes.txt").write_text("alpha beta gamma delta\n")
    return root


@pytest.fixture
def proj(tmp_path: Path, run_cli) -> Path:  # noqa: ANN001
    """The project, trusted by the user (`aiagent trust`): its skills with code may run."""
    root = make_proj(tmp_path)
    assert run_cli("trust", str(root)).returncode == 0
    return root


def test_untrusted_project_lists_its_code_skills_as_untrusted(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    root = make_proj(tmp_path)
    rows = {r["name"]: r for r in json.loads(run_cli("skill", "list", "--json", cwd=root).stdout)}
    assert rows["word-tools"]["state"] == "untrusted" and rows["release-notes"]["state"] == "untrusted"
    assert rows["python-style"]["state"] == "enabled"  # instructions only: loaded anyway
    info = run_cli("skill", "info", "word-tools", cwd=root)
    assert info.returncode == 1 and "not trusted" in info.stderr and "aiagent trust" in info.stderr


def test_skill_list_shows_broken_skills(run_cli, proj: Path) -> None:  # noqa: ANN001
    proc = run_cli("skill", "list", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    assert "word-tools" in proc.stdout and "project" in proc.stdout and "shell-bg" in proc.stdout
    assert "broken" in proc.stdout and "error:" in proc.stdout and "teleport" in proc.stdout
    rows = json.loads(run_cli("skill", "list", "--json", cwd=proj).stdout)
    assert {r["name"]: r["state"] for r in rows}["broken"] == "broken"


def test_skill_info_enable_disable_and_permissions(run_cli, proj: Path) -> None:  # noqa: ANN001
    info = run_cli("skill", "info", "word-tools", cwd=proj)
    assert info.returncode == 0 and "file:read" in info.stdout and "count_words" in info.stdout
    assert "no skill named 'nope'" in run_cli("skill", "info", "nope", cwd=proj).stderr
    assert run_cli("skill", "disable", "word-tools", cwd=proj).returncode == 0
    assert "disabled" in run_cli("skill", "info", "word-tools", cwd=proj).stdout
    assert run_cli("skill", "enable", "word-tools", cwd=proj).returncode == 0
    granted = run_cli("skill", "permissions", "word-tools", "--grant", cwd=proj)
    assert "file:read" in granted.stdout and "always" in granted.stdout
    assert "skill:word-tools" in run_cli("permissions", "list", cwd=proj).stdout
    revoked = run_cli("skill", "permissions", "word-tools", "--revoke", cwd=proj)
    assert "revoked 1 grant" in revoked.stdout
    assert "granted: nothing" in run_cli("skill", "permissions", "word-tools", cwd=proj).stdout


def test_skill_create_and_test(run_cli, tmp_path: Path) -> None:  # noqa: ANN001
    made = run_cli("skill", "create", "my-tool", "--type", "tool", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    folder = tmp_path / ".agent" / "skills" / "my-tool"
    assert (folder / "SKILL.yaml").is_file() and (folder / "tests" / "cases.yaml").is_file()
    tested = run_cli("skill", "test", str(folder), cwd=tmp_path)
    assert tested.returncode == 0 and "1 passed, 0 failed" in tested.stdout, tested.stdout + tested.stderr
    (folder / "skill.star").write_text((folder / "skill.star").read_text().replace("[:count]", "[:1]"))
    failed = run_cli("skill", "test", str(folder), cwd=tmp_path)
    assert failed.returncode == 1 and "FAIL" in failed.stdout
    assert run_cli("skill", "create", "Bad_Name", cwd=tmp_path).returncode == 2


def test_workflow_run(run_cli, proj: Path) -> None:  # noqa: ANN001
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
                    "-m", "Add the thing"], cwd=proj, check=True)
    with FakeLLM([Turn(text="Release notes: the thing was added.")]) as fake:
        env = {**ANTHROPIC, "ANTHROPIC_BASE_URL": fake.url}
        proc = run_cli("workflow", "run", "release-notes", "--input", '{"commits": 3}',
                       "--approve-skills", "release-notes", cwd=proj, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Release notes: the thing was added."
    denied = run_cli("workflow", "run", "release-notes", cwd=proj)
    assert denied.returncode == 1 and "not granted" in denied.stderr
    bad = run_cli("workflow", "run", "release-notes", "--input", "{oops", cwd=proj)
    assert bad.returncode == 2 and "--input: not valid JSON" in bad.stderr


def test_headless_keyword_prompt_skill_and_starlark_tool(run_cli, proj: Path) -> None:  # noqa: ANN001
    script = [
        Turn(tool_calls=[ToolCall("activate_skill", {"name": "word-tools"})]),
        Turn(tool_calls=[ToolCall("count_words", {"path": "notes.txt"})]),
        Turn(text="notes.txt has 4 words."),
    ]
    with FakeLLM(script) as fake:
        env = {**ANTHROPIC, "ANTHROPIC_BASE_URL": fake.url}
        proc = run_cli("--headless", "--approve-skills", "word-tools", "-o", "json", "--prompt",
                       "Follow the zebra conventions and count the words in notes.txt", cwd=proj, env=env)
        sent = fake.requests
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["answer"] == "notes.txt has 4 words."
    calls = {c["name"]: c for c in out["tool_calls"]}
    assert not calls["activate_skill"]["is_error"] and "count_words" in calls["activate_skill"]["result"]
    assert not calls["count_words"]["is_error"] and '"words": 4' in calls["count_words"]["result"]
    first = json.dumps(sent[0]["json"])
    assert "ZEBRA-RULES" in first  # the keyword-triggered prompt skill is in the system prompt
    assert "python-style" in first and "activate_skill" in first  # the index, and the tool
    assert "count_words" not in json.dumps(sent[0]["json"]["tools"])  # not until activated
    assert "count_words" in json.dumps(sent[1]["json"]["tools"])


def test_headless_skill_without_approval_is_reported(run_cli, proj: Path) -> None:  # noqa: ANN001
    script = [Turn(tool_calls=[ToolCall("activate_skill", {"name": "word-tools"})]), Turn(text="ok")]
    with FakeLLM(script) as fake:
        env = {**ANTHROPIC, "ANTHROPIC_BASE_URL": fake.url}
        proc = run_cli("--headless", "--skills", "no-read", "-o", "json", "--prompt", "hi", cwd=proj, env=env)
    assert proc.returncode == 0, proc.stderr
    call = json.loads(proc.stdout)["tool_calls"][0]
    assert call["is_error"] and "--approve-skills word-tools" in call["result"]


def test_help_does_not_import_skills(run_cli) -> None:  # noqa: ANN001
    import subprocess
    import sys

    code = ("import sys; from aiagent.frontends.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('aiagent.agent.skills') or m == 'starlark'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.stdout.strip().endswith("[]"), proc.stdout
    assert "--skills" in proc.stdout and "--approve-skills" in proc.stdout
