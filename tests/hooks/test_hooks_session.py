"""What user hooks do to a prompt is what the session keeps: the context a
UserPromptSubmit hook added is sent again by ``--continue``; a blocked prompt is not kept
as if it had been sent. The real ``aiagent --headless`` against FakeLLM on loopback."""

from __future__ import annotations

import json
from pathlib import Path

from hookkit import hook

from aiagent.testing import Turn


def _user_texts(request: dict) -> list[str]:
    return [json.dumps(m["content"]) for m in request["json"]["messages"] if m["role"] == "user"]


def _latest(run_cli, project: Path) -> str:
    listed = run_cli("sessions", "list", "--json", cwd=project)
    assert listed.returncode == 0, listed.stderr
    sessions = json.loads(listed.stdout)
    assert len(sessions) == 1, sessions
    return str(sessions[0]["id"])


def test_continue_sends_the_context_a_hook_added(run_agent, user_config, run_cli, project: Path,
                                                  tmp_path: Path) -> None:
    count = tmp_path / "count"
    user_config(hook("UserPromptSubmit",
                     f"n=$(cat {count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count}; "
                     "echo CTX-RUN-$n"))
    first = run_agent(script=[Turn(text="one")], prompt="first prompt")
    assert first.proc.returncode == 0, first.proc.stderr
    again = run_agent("--continue", script=[Turn(text="two")], prompt="second prompt")
    assert again.proc.returncode == 0, again.proc.stderr
    users = _user_texts(again.requests[0])
    assert len(users) == 2
    assert "first prompt" in users[0] and "CTX-RUN-1" in users[0] and "CTX-RUN-2" not in users[0]
    assert "second prompt" in users[1] and "CTX-RUN-2" in users[1]
    shown = run_cli("sessions", "show", _latest(run_cli, project), cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "CTX-RUN-1" in shown.stdout and "CTX-RUN-2" in shown.stdout


def test_a_blocked_prompt_is_not_kept_as_sent(run_agent, user_config, run_cli, project: Path) -> None:
    user_config(hook("UserPromptSubmit",
                     "if grep -q SECRET; then echo 'no secrets in prompts' >&2; exit 2; fi"))
    blocked = run_agent(script=[Turn(text="never")], prompt="my SECRET is hunter2")
    assert blocked.proc.returncode == 1 and blocked.requests == []
    again = run_agent("--continue", script=[Turn(text="hello")], prompt="a harmless prompt")
    assert again.proc.returncode == 0, again.proc.stderr
    sent = json.dumps(again.requests[0]["json"])
    assert "hunter2" not in sent and "a harmless prompt" in sent
    assert "blocked by a UserPromptSubmit hook" in sent
    exported = run_cli("sessions", "export", _latest(run_cli, project), cwd=project)
    assert exported.returncode == 0, exported.stderr
    assert "hunter2" not in exported.stdout and "a harmless prompt" in exported.stdout
