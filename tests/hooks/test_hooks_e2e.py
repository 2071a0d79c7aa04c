"""User hooks through the real ``aiagent --headless`` against FakeLLM on loopback: what
the model is sent (FakeLLM's recorded requests) and what the hooks were given."""

from __future__ import annotations

import json
from pathlib import Path

from hookkit import PY, hook

from aiagent.testing import ToolCall, Turn


def test_pre_tool_use_exit_2_denies_and_the_model_reads_the_reason(run_agent, user_config, tmp_path: Path) -> None:
    saved = tmp_path / "pre.json"
    user_config(hook("PreToolUse", f"cat > {saved}; echo 'no reading today' >&2; exit 2", "read_file"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    result = ran.tool_result()
    assert "no reading today" in result and "hello world" not in result
    payload = json.loads(saved.read_text())
    assert payload["hook_event_name"] == "PreToolUse" and payload["tool_name"] == "read_file"
    assert payload["tool_input"]["file_path"].endswith("notes.txt")
    assert payload["cwd"] and payload["session_id"] and "transcript_path" in payload
    assert payload["tool_use_id"] and payload["permission_mode"] == "prompt"


def test_pre_tool_use_json_deny(run_agent, user_config) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                     "permissionDecisionReason": "the JSON says no"}}
    user_config(hook("PreToolUse", f"echo {json.dumps(json.dumps(answer))}"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert "the JSON says no" in ran.tool_result() and "hello world" not in ran.tool_result()


def test_post_tool_use_gets_the_result(run_agent, user_config, tmp_path: Path) -> None:
    saved = tmp_path / "post.json"
    user_config(hook("PostToolUse", f"cat > {saved}"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    payload = json.loads(saved.read_text())
    assert payload["hook_event_name"] == "PostToolUse" and payload["tool_name"] == "read_file"
    assert "hello world" in payload["tool_response"]["content"]
    assert payload["tool_response"]["is_error"] is False


def test_post_tool_use_block_reason_is_added_to_the_result(run_agent, user_config) -> None:
    user_config(hook("PostToolUse", "echo 'lint failed: fix it' >&2; exit 2"))
    ran = run_agent()
    result = ran.tool_result()
    assert "hello world" in result and "lint failed: fix it" in result


def test_user_prompt_submit_adds_context_the_model_sees(run_agent, user_config, tmp_path: Path) -> None:
    saved = tmp_path / "prompt.json"
    user_config(hook("UserPromptSubmit", f"cat > {saved}; echo CONTEXT-FROM-HOOK-42"))
    ran = run_agent(script=[Turn(text="ok")], prompt="What day is it?")
    assert ran.proc.returncode == 0, ran.proc.stderr
    first = ran.requests[0]["json"]["messages"]
    user = [m for m in first if m["role"] == "user"][-1]
    assert "What day is it?" in json.dumps(user) and "CONTEXT-FROM-HOOK-42" in json.dumps(user)
    assert json.loads(saved.read_text())["prompt"] == "What day is it?"


def test_user_prompt_submit_block_stops_before_the_model(run_agent, user_config) -> None:
    user_config(hook("UserPromptSubmit", "echo 'no secrets in prompts' >&2; exit 2"))
    ran = run_agent(script=[Turn(text="should not be asked")])
    assert ran.proc.returncode == 1
    assert ran.requests == []
    assert "no secrets in prompts" in ran.proc.stderr


def test_session_start_and_stop_fire_once(run_agent, user_config, tmp_path: Path) -> None:
    log = tmp_path / "events.log"
    user_config(hook("SessionStart", f"echo start >> {log}; echo SESSION-CONTEXT-7")
                + hook("Stop", f"cat > {tmp_path / 'stop.json'}; echo stop >> {log}")
                + hook("UserPromptSubmit", f"echo prompt >> {log}"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert log.read_text().split() == ["start", "prompt", "stop"]
    assert "SESSION-CONTEXT-7" in ran.sent(0)
    stop = json.loads((tmp_path / "stop.json").read_text())
    assert stop["hook_event_name"] == "Stop" and stop["last_assistant_message"] == "All done."


def test_matcher_filters_on_the_tool_name(run_agent, user_config, tmp_path: Path) -> None:
    user_config(hook("PreToolUse", f"touch {tmp_path / 'shell'}", "shell|exec_command")
                + hook("PreToolUse", f"touch {tmp_path / 'read'}", "read_.*")
                + hook("PreToolUse", f"touch {tmp_path / 'partial'}", "read")
                + hook("PreToolUse", f"touch {tmp_path / 'all'}", "*"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert (tmp_path / "read").exists() and (tmp_path / "all").exists()
    assert not (tmp_path / "shell").exists()
    assert not (tmp_path / "partial").exists()  # the whole name must match


def test_each_firing_is_a_debug_line(run_agent, user_config) -> None:
    user_config(hook("PreToolUse", "true", "read_file"))
    ran = run_agent("--debug")
    assert "hook fires: PreToolUse (read_file)" in ran.proc.stderr
    assert "[[hooks.PreToolUse]] #1" in ran.proc.stderr


def test_env_names_the_project(run_agent, user_config, project: Path, tmp_path: Path) -> None:
    out = tmp_path / "env.txt"
    user_config(hook("SessionStart", f'echo "$AIAGENT_PROJECT_DIR|$CLAUDE_PROJECT_DIR|$PWD" > {out}'))
    run_agent(script=[Turn(text="ok")])
    real = str(project.resolve())
    assert out.read_text().strip() == f"{real}|{real}|{real}"


def test_a_second_tool_call_in_one_turn_is_judged_on_its_own(run_agent, user_config, project: Path) -> None:
    script = [Turn(text="two", tool_calls=[ToolCall("read_file", {"file_path": str(project / "other.txt")}),
                                          ToolCall("read_file", {"file_path": str(project / "notes.txt")})]),
              Turn(text="done")]
    checker = ("import json,sys; p=json.load(sys.stdin); "
               "sys.exit(2 if 'other' in p['tool_input']['file_path'] else 0)")
    user_config(hook("PreToolUse", f"{PY} -c {json.dumps(checker)}"))
    ran = run_agent(script=script)
    tools = [m["content"] for m in ran.requests[-1]["json"]["messages"] if m["role"] == "tool"]
    assert "SECRET-OTHER" not in tools[0] and "denied" in tools[0]
    assert "hello world" in tools[1]
