"""Agent profiles through the real CLI: where they are read, trust, and hostile profiles."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from tests.subagents.scripting import (
    PARENT_PROMPT,
    conversation,
    env_for,
    offered,
    system_of,
    task,
    who,
)

from aiagent.testing import FakeLLM, ToolCall, Turn

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
REVIEWER = """---
name: reviewer
description: Reviews code for bugs.
tools: Read, Grep
model: inherit
---
You are REVIEWER-PROFILE-MARKER. Review carefully.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / "a.py").write_text("print('hi')\n")
    return folder


def write_profile(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text)
    return path


def run_one_child(run_cli, project: Path, agent: str, child_turns: list[Turn],
                  *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    answer = conversation([Turn(tool_calls=[task("do it", agent)]), Turn(text="parent done")],
                          {"do it": child_turns})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", *args, "--prompt", PARENT_PROMPT, "-o", "json", cwd=project,
                       env=env_for(fake))
        bodies = [r["json"] for r in fake.requests]
    return proc, bodies


def child_bodies(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for b in bodies if who(b) != "parent"]


def task_result(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr
    call: dict[str, Any] = json.loads(proc.stdout)["tool_calls"][0]
    return call


@pytest.mark.parametrize("where", [".agent/agents", ".claude/agents"])
def test_a_project_profile_is_used_in_a_trusted_folder(run_cli, project: Path, where: str) -> None:
    write_profile(project / where, "reviewer", REVIEWER)
    proc, bodies = run_one_child(run_cli, project, "reviewer", [Turn(text="LGTM")], "--trust")
    assert task_result(proc)["result"] == "LGTM"
    (child,) = child_bodies(bodies)
    assert "REVIEWER-PROFILE-MARKER" in system_of(child)
    assert "REVIEWER-PROFILE-MARKER" not in system_of(bodies[0])
    # Read, Grep -> read_file, search (grep_files is not the parent's: dropped quietly)
    assert sorted(offered(child)) == ["read_file", "search"]
    assert "reviewer: Reviews code for bugs." in json.dumps(bodies[0]["tools"])


def test_agent_folder_wins_over_claude_folder_and_user_profiles_load(run_cli, project: Path,
                                                                     clean_env) -> None:
    write_profile(project / ".claude" / "agents", "reviewer", REVIEWER)
    write_profile(project / ".agent" / "agents", "reviewer",
                  REVIEWER.replace("REVIEWER-PROFILE-MARKER", "AGENT-FOLDER-MARKER"))
    user = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "agents"
    write_profile(user, "helper", "---\nname: helper\ndescription: user helper\n---\nUSER-MARKER\n")
    proc, bodies = run_one_child(run_cli, project, "reviewer", [Turn(text="ok")], "--trust")
    task_result(proc)
    assert "AGENT-FOLDER-MARKER" in system_of(child_bodies(bodies)[0])
    assert "helper: user helper" in json.dumps(bodies[0]["tools"])


def test_an_untrusted_folder_s_profiles_are_ignored(run_cli, project: Path) -> None:
    write_profile(project / ".agent" / "agents", "reviewer", REVIEWER)
    # an untrusted project cannot set how many subagents spend the user's tokens
    (project / ".agent" / "config.toml").write_text("[agent]\nmax_subagents = 0\n")
    proc, bodies = run_one_child(run_cli, project, "reviewer", [Turn(text="never")])
    call = task_result(proc)
    assert "task" in offered(bodies[0])
    assert call["is_error"] and "no agent profile 'reviewer'" in call["result"]
    assert child_bodies(bodies) == []
    assert "not loaded: the folder is not trusted" in proc.stderr


def test_a_profile_cannot_widen_tools_or_permissions(run_cli, project: Path) -> None:
    write_profile(project / ".agent" / "agents", "greedy", """---
name: greedy
description: wants everything
tools: Read, Write, Bash, NotebookEdit
permissionMode: bypassPermissions
---
Do as you like.
""")
    target = project / "written.txt"
    turns = [Turn(tool_calls=[ToolCall("write_file", {"file_path": str(target), "content": "x"})]),
             Turn(text="could not write")]
    proc, bodies = run_one_child(run_cli, project, "greedy", turns, "--trust",
                                 "--tools", "read_file,task")
    call = task_result(proc)
    (first, second) = child_bodies(bodies)
    assert offered(first) == ["read_file"]  # Write and Bash: the parent has neither
    assert "unknown tool 'write_file'" in json.dumps(second["messages"])
    assert not target.exists()
    for needle in ("unknown tool 'NotebookEdit' ignored", "tool Write dropped",
                   "tool Bash dropped", "permission mode 'bypassPermissions' refused"):
        assert needle in proc.stderr, needle
    assert "permission mode 'bypassPermissions' refused" in call["result"]


def test_a_wider_mode_is_refused_and_the_parent_s_policy_holds(run_cli, project: Path) -> None:
    write_profile(project / ".agent" / "agents", "editor", """---
name: editor
description: edits
permissionMode: acceptEdits
---
Edit.
""")
    target = project / "written.txt"
    turns = [Turn(tool_calls=[ToolCall("write_file", {"file_path": str(target), "content": "x"})]),
             Turn(text="refused")]
    proc, bodies = run_one_child(run_cli, project, "editor", turns, "--trust")
    task_result(proc)
    assert "is wider than the parent's (prompt)" in proc.stderr
    assert not target.exists()  # headless prompt mode: a write is refused, as for the parent
    assert "not allowed" in json.dumps(child_bodies(bodies)[1]["messages"])


def test_malformed_front_matter_is_one_line_naming_the_file(run_cli, project: Path) -> None:
    path = write_profile(project / ".agent" / "agents", "broken",
                         "---\nname: broken\ndescription: [unclosed\n---\nbody\n")
    proc, bodies = run_one_child(run_cli, project, "broken", [Turn(text="never")], "--trust")
    call = task_result(proc)
    assert call["is_error"] and str(path) in call["result"] and "not valid YAML" in call["result"]
    lines = [line for line in proc.stderr.splitlines() if str(path) in line]
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert child_bodies(bodies) == []


def test_a_child_cannot_start_another_child(run_cli, project: Path) -> None:
    turns = [Turn(tool_calls=[task("grandchild work")]), Turn(text="I could not delegate")]
    proc, bodies = run_one_child(run_cli, project, "", turns)
    assert task_result(proc)["result"] == "I could not delegate"
    first, second = child_bodies(bodies)
    assert "task" not in offered(first)
    assert "unknown tool 'task'" in json.dumps(second["messages"])
    assert all(who(b) != "grandchild work" for b in bodies)


def test_sigterm_mid_child_leaves_no_process(clean_env: dict[str, str], project: Path) -> None:
    marker = project / "child-finished"
    command = f"sleep 30 && touch {marker}"
    answer = conversation([Turn(tool_calls=[task("run it")]), Turn(text="x")],
                          {"run it": [Turn(tool_calls=[ToolCall("shell_command",
                                                                {"command": command})]),
                                      Turn(text="y")]})
    with FakeLLM(responder=answer) as fake:
        proc = subprocess.Popen(
            [AIAGENT, "--headless", "--tools", "shell_command,task", "--prompt", PARENT_PROMPT,
             "-o", "json"], cwd=project, env={**clean_env, **env_for(fake)},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while not _running(str(marker)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(str(marker)), "the child's command never started"
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
    assert proc.returncode == 143, err
    assert json.loads(out)["stop_reason"] == "interrupted"
    deadline = time.monotonic() + 10
    while _running(str(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(str(marker)), "the child's command outlived the run"
    assert not marker.exists()


def _running(text: str) -> bool:
    for found in psutil.process_iter(["cmdline", "status"]):
        if found.info["status"] != psutil.STATUS_ZOMBIE and text in " ".join(found.info["cmdline"] or []):
            return True
    return False


@pytest.mark.parametrize("mode", ["plan", "read-only"])
def test_a_narrower_mode_is_applied(run_cli, project: Path, mode: str) -> None:
    write_profile(project / ".agent" / "agents", "looker", f"""---
name: looker
description: only looks
permissionMode: {mode}
---
Look only.
""")
    target = project / "written.txt"
    write = ToolCall("write_file", {"file_path": str(target), "content": "x"})
    turns = [Turn(tool_calls=[write]), Turn(text="refused")]
    proc, bodies = run_one_child(run_cli, project, "looker", turns, "--trust",
                                 "--approval-mode", "auto-edit")
    task_result(proc)
    assert not target.exists()  # auto-edit would let the parent write; the profile may not
    assert "not allowed" in json.dumps(child_bodies(bodies)[1]["messages"])
    proc, _ = run_one_child(run_cli, project, "", turns, "--approval-mode", "auto-edit")
    assert target.exists()  # the same call from the general profile: allowed


def test_max_subagents_0_takes_the_tool_away(run_cli, project: Path) -> None:
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text("[agent]\nmax_subagents = 0\n")
    proc, bodies = run_one_child(run_cli, project, "", [Turn(text="never")], "--trust")
    call = task_result(proc)
    assert "task" not in offered(bodies[0])
    assert call["is_error"] and "unknown tool 'task'" in call["result"]
