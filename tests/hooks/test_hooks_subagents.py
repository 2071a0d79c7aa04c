"""User hooks and ``task`` children through the real ``aiagent --headless`` against FakeLLM
on loopback: SubagentStop (its payload, a "block" that makes the child go on, bounded, a
hook that hangs, trust), the tool hooks on a child's calls, and which events stay the main
agent's (Stop, UserPromptSubmit)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from hookkit import hook
from tests.subagents.scripting import PARENT_PROMPT, conversation, env_for, task, who

from aiagent.testing import FakeLLM, ToolCall, Turn

CHILD = "Read the notes for me."


def _delegate(run_cli, project: Path, child: list[Turn], *args: str, tasks: int = 1,
              parent_text: str = "parent done") -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """The parent calls ``task`` ``tasks`` times (one child each, one after the other), the
    children answer ``child``; returns the process and the request bodies."""
    calls = [Turn(tool_calls=[task(f"{CHILD} {n}")]) for n in range(1, tasks + 1)]
    answer = conversation([*calls, Turn(text=parent_text)],
                          {f"{CHILD} {n}": child for n in range(1, tasks + 1)})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", *args, "--prompt", PARENT_PROMPT, "-o", "json", cwd=project,
                       env=env_for(fake))
        return proc, [r["json"] for r in fake.requests]


def _children(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for b in bodies if who(b) != "parent"]


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _logger(path: Path) -> str:
    """A hook command that appends its payload (one JSON line) to ``path``."""
    return f"cat >> {path}; echo >> {path}"


def test_subagent_stop_fires_once_per_child_with_its_payload(run_cli, user_config, project: Path,
                                                            tmp_path: Path) -> None:
    sub, other, stop, prompt = (tmp_path / f"{n}.jsonl" for n in ("sub", "other", "stop", "prompt"))
    user_config(hook("SubagentStop", _logger(sub), matcher="general")
                + hook("SubagentStop", _logger(other), matcher="reviewer")
                + hook("Stop", _logger(stop)) + hook("UserPromptSubmit", _logger(prompt)))
    proc, bodies = _delegate(run_cli, project, [Turn(text="CHILD ANSWER")], tasks=2)
    assert proc.returncode == 0, proc.stderr
    (stopped,) = _lines(stop)  # Stop: the main agent's only, once, with the parent's answer
    assert stopped["last_assistant_message"] == "parent done"
    payloads = _lines(sub)
    assert [p["agent_id"] for p in payloads] == ["general#1", "general#2"]
    for p in payloads:
        assert p["hook_event_name"] == "SubagentStop" and p["agent_type"] == "general"
        assert p["stop_hook_active"] is False and p["last_assistant_message"] == "CHILD ANSWER"
        assert p["session_id"] == stopped["session_id"] and p["cwd"] == str(project)
        assert "transcript_path" in p and "agent_transcript_path" in p
    assert _lines(other) == []  # its matcher names another profile
    (prompted,) = _lines(prompt)  # UserPromptSubmit too: the parent's prompt only
    assert prompted["prompt"] == PARENT_PROMPT
    assert len(_children(bodies)) == 2


def test_tool_hooks_fire_for_a_child_s_calls_and_may_deny_them(run_cli, user_config,
                                                              project: Path, tmp_path: Path) -> None:
    pre, post = tmp_path / "pre.jsonl", tmp_path / "post.jsonl"
    user_config(hook("PreToolUse", _logger(pre), matcher="read_file")
                + hook("PostToolUse", _logger(post), matcher="read_file")
                + hook("PreToolUse", "echo 'no shell for children' >&2; exit 2", matcher="shell_command"))
    notes = str(project / "notes.txt")
    child = [Turn(tool_calls=[ToolCall("read_file", {"file_path": notes})]),
             Turn(tool_calls=[ToolCall("shell_command", {"command": "echo hi > made.txt"})]),
             Turn(text="child done")]
    proc, bodies = _delegate(run_cli, project, child, "--approval-mode", "full-auto")
    assert proc.returncode == 0, proc.stderr
    (before,) = _lines(pre)
    (after,) = _lines(post)
    assert before["tool_name"] == "read_file" and before["tool_input"] == {"file_path": notes}
    assert after["tool_response"]["content"].strip().endswith("hello world")
    assert not (project / "made.txt").exists()
    last = json.dumps(_children(bodies)[-1]["messages"])
    assert "a PreToolUse hook denied it: no shell for children" in last


def test_a_block_makes_the_child_go_on_once_with_the_reason(run_cli, user_config, project: Path,
                                                           tmp_path: Path) -> None:
    seen, mark = tmp_path / "payloads.jsonl", tmp_path / "blocked-once"
    answer = json.dumps({"decision": "block", "reason": "check the other file too"})
    user_config(hook("SubagentStop", f"{_logger(seen)}; if [ ! -e {mark} ]; then touch {mark}; "
                                     f"echo '{answer}'; fi"))
    proc, bodies = _delegate(run_cli, project, [Turn(text="first"), Turn(text="second")])
    assert proc.returncode == 0, proc.stderr
    children = _children(bodies)
    assert len(children) == 2
    assert "check the other file too" in json.dumps(children[1]["messages"][-1])
    assert "check the other file too" not in json.dumps(children[0])
    assert [p["stop_hook_active"] for p in _lines(seen)] == [False, True]
    assert _lines(seen)[1]["last_assistant_message"] == "second"
    (call,) = json.loads(proc.stdout)["tool_calls"]
    assert call["result"] == "second"
    assert "makes subagent general#1 go on (1/3)" in proc.stderr
    # the parent is not made to go on by it
    assert sum(1 for b in bodies if who(b) == "parent") == 2


def test_a_hook_that_always_blocks_stops_the_child_at_the_bound(run_cli, user_config,
                                                               project: Path) -> None:
    user_config("[hooks]\nmax_stop_continuations = 2\n"
                + hook("SubagentStop", "echo 'not yet' >&2; exit 2"))
    proc, bodies = _delegate(run_cli, project, [Turn(text=f"answer {n}") for n in range(1, 8)])
    assert proc.returncode == 0, proc.stderr
    children = _children(bodies)
    assert len(children) == 3  # the answer, then two continuations
    assert json.dumps(children[2]["messages"]).count("not yet") == 2
    assert "it already went on 2 time(s) ([hooks] max_stop_continuations = 2)" in proc.stderr
    (call,) = json.loads(proc.stdout)["tool_calls"]
    assert call["result"] == "answer 3" and not call["is_error"]


def test_a_hanging_hook_is_killed_at_its_time_limit(run_cli, user_config, project: Path) -> None:
    user_config(hook("SubagentStop", "sleep 60", timeout=1))
    started = time.monotonic()
    proc, bodies = _delegate(run_cli, project, [Turn(text="child done")])
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30
    assert "timed out after 1s and was killed; ignored" in proc.stderr
    assert json.loads(proc.stdout)["answer"] == "parent done"
    assert len(_children(bodies)) == 1


def test_untrusted_project_subagent_stop_hooks_do_not_run(run_cli, project: Path,
                                                          tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (project / ".agent").mkdir()
    config = project / ".agent" / "config.toml"
    config.write_text(hook("SubagentStop", f"touch {marker}"))
    proc, _ = _delegate(run_cli, project, [Turn(text="child done")])
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "1 project hook(s) not run: this folder is not trusted" in proc.stderr
    listed = run_cli("hooks", "list", cwd=project).stdout
    assert f"{config}: [[hooks.SubagentStop]] #1" in listed and "not trusted" in listed
    proc, _ = _delegate(run_cli, project, [Turn(text="child done")], "--trust")
    assert proc.returncode == 0 and marker.exists()


def test_hooks_list_shows_subagent_stop(run_cli, user_config, project: Path) -> None:
    path = user_config(hook("SubagentStop", "true", matcher="reviewer", timeout=5))
    listed = run_cli("hooks", "list", cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert "SubagentStop     reviewer" in listed.stdout
    assert f"from user: {path}: [[hooks.SubagentStop]] #1" in listed.stdout
    rows = json.loads(run_cli("hooks", "list", "--json", cwd=project).stdout)["active"]
    assert [(r["event"], r["matcher"], r["timeout"]) for r in rows] == [("SubagentStop", "reviewer", 5.0)]


def test_a_profile_s_narrower_mode_holds_with_a_pre_tool_use_hook(run_cli, user_config,
                                                                  project: Path, tmp_path: Path) -> None:
    """The approval wrapper a PreToolUse hook puts round the policy does not hide it from
    the profile's narrowing (a read-only child may not write, hook or no hook)."""
    user_config(hook("PreToolUse", "true"))
    agents = project / ".agent" / "agents"
    agents.mkdir(parents=True)
    (agents / "looker.md").write_text("---\nname: looker\ndescription: only looks\n"
                                      "permissionMode: read-only\n---\nLook only.\n")
    target = project / "written.txt"
    write = ToolCall("write_file", {"file_path": str(target), "content": "x"})
    answer = conversation([Turn(tool_calls=[task("look", "looker")]), Turn(text="parent done")],
                          {"look": [Turn(tool_calls=[write]), Turn(text="refused")]})
    with FakeLLM(responder=answer) as fake:
        proc = run_cli("--headless", "--trust", "--approval-mode", "auto-edit", "--prompt",
                       PARENT_PROMPT, "-o", "json", cwd=project, env=env_for(fake))
    assert proc.returncode == 0, proc.stderr
    assert not target.exists()


def test_claude_settings_subagent_stop_runs_when_opted_in(run_cli, user_config, clean_env,
                                                          project: Path, tmp_path: Path) -> None:
    seen = tmp_path / "claude.jsonl"
    settings = Path(clean_env["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hooks": {"SubagentStop": [
        {"matcher": "general", "hooks": [{"type": "command", "command": _logger(seen)}]}]}}))
    user_config("[hooks]\nread_claude_settings = true\n")
    proc, _ = _delegate(run_cli, project, [Turn(text="child done")])
    assert proc.returncode == 0, proc.stderr
    (payload,) = _lines(seen)
    assert payload["hook_event_name"] == "SubagentStop" and payload["agent_id"] == "general#1"


def test_continue_false_in_a_child_s_tool_hook_stops_that_child(run_cli, user_config,
                                                                project: Path) -> None:
    user_config(hook("PreToolUse", """echo '{"continue": false, "stopReason": "enough reading"}'""",
                     matcher="read_file"))
    notes = str(project / "notes.txt")
    child = [Turn(tool_calls=[ToolCall("read_file", {"file_path": notes})]), Turn(text="never")]
    proc, bodies = _delegate(run_cli, project, child)
    assert "stopped the run: enough reading" in proc.stderr
    assert len(_children(bodies)) == 1
    data = json.loads(proc.stdout)
    (sub,) = data["subagents"]
    assert sub["stop_reason"] == "hook_stopped"
    assert "stopped before finishing (hook_stopped)" in data["tool_calls"][0]["result"]
    assert proc.returncode == 0 and data["answer"] == "parent done"
