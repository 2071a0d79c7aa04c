"""Hooks that misbehave: the run goes on, the user is told, nothing is widened."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import psutil
from hookkit import PY, hook

from aiagent.testing import Turn


def test_a_hanging_hook_is_killed_at_its_timeout_and_reported(run_agent, user_config) -> None:
    mark = f"hk{uuid.uuid4().hex[:8]}"
    # the hook's child outlives the shell unless the whole tree is killed
    user_config(hook("PreToolUse", f"sleep 300 & exec -a {mark} sleep 300", timeout=1))
    started = time.monotonic()
    ran = run_agent()
    assert time.monotonic() - started < 30
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert "timed out after 1s" in ran.proc.stderr
    assert "hello world" in ran.tool_result()  # not a deny: the tool ran
    left = [p for p in psutil.process_iter(["cmdline"]) if mark in " ".join(p.info["cmdline"] or [])]
    assert left == []


def test_a_flood_on_stdout_is_capped(run_agent, user_config) -> None:
    flood = f"{PY} -c \"import sys; sys.stdout.write('A' * 5_000_000)\""
    user_config("[hooks]\nmax_output_bytes = 2048\n" + hook("UserPromptSubmit", flood))
    ran = run_agent(script=[Turn(text="ok")])
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert "printed more than 2048 bytes" in ran.proc.stderr
    sent = ran.sent(0)
    assert "A" * 2000 in sent and "A" * 2049 not in sent


def test_invalid_json_is_reported_and_ignored(run_agent, user_config) -> None:
    user_config(hook("PreToolUse", "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\"'"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert "printed invalid JSON" in ran.proc.stderr
    assert "hello world" in ran.tool_result()


def test_a_failing_hook_is_reported_and_does_not_stop_the_run(run_agent, user_config) -> None:
    user_config(hook("PreToolUse", "no-such-program-xyz") + hook("Stop", "exit 1"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert ran.proc.stdout.strip() == "All done."
    assert "exited with code 127" in ran.proc.stderr and "exited with code 1" in ran.proc.stderr
    assert "hello world" in ran.tool_result()


def test_updated_input_is_not_honoured(run_agent, user_config, project: Path) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                     "updatedInput": {"file_path": str(project / "other.txt")}}}
    user_config(hook("PreToolUse", f"echo {json.dumps(json.dumps(answer))}"))
    ran = run_agent()
    assert "hello world" in ran.tool_result() and "SECRET-OTHER" not in ran.tool_result()
    assert "updatedInput is not honoured" in ran.proc.stderr


def test_a_hook_editing_its_payload_changes_nothing(run_agent, user_config, project: Path) -> None:
    """The payload is a copy on stdin: a hook that rewrites it (or any file it was given)
    cannot change the call."""
    script = ("import json,sys; p=json.load(sys.stdin); p['tool_input']['file_path']="
              f"{str(project / 'other.txt')!r}; print(json.dumps(p))")
    user_config(hook("PreToolUse", f"{PY} -c {json.dumps(script)}"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert "hello world" in ran.tool_result() and "SECRET-OTHER" not in ran.tool_result()


def test_a_headless_run_refuses_what_a_hook_allows_but_the_policy_would_ask(run_agent, user_config,
                                                                           project: Path) -> None:
    """"allow" never widens: the headless policy refuses a shell command it would ask
    about, whatever the hook says (allow_skips_prompt only answers a person's prompt)."""
    from aiagent.testing import ToolCall

    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    user_config("[hooks]\nallow_skips_prompt = true\n"
                + hook("PreToolUse", f"echo {json.dumps(json.dumps(answer))}"))
    script = [Turn(text="run", tool_calls=[ToolCall("shell_command", {"command": "touch made-by-shell"})]),
              Turn(text="done")]
    ran = run_agent(script=script)
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert "needs approval" in ran.tool_result()
    assert not (project / "made-by-shell").exists()
