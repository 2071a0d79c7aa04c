"""`aiagent sessions list | show | export | fork | delete | compact` on real sessions."""

from __future__ import annotations

import json
from pathlib import Path

from sessions_helpers import SummarisingFake, anthropic_env, db_rows

from aiagent.testing import FakeLLM, ToolCall, Turn


def _session(run_cli, project: Path, prompt: str = "Summarise notes.txt") -> None:
    script = [Turn(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
              Turn(text="It is about sk-live-1234567890abcdef.")]
    with FakeLLM(script) as fake:
        proc = run_cli("--headless", "-p", prompt, cwd=project,
                       env={**anthropic_env(fake), "MY_API_KEY": "sk-live-1234567890abcdef"})
    assert proc.returncode == 0, proc.stderr


def test_list_show_export_fork_delete(run_cli, tmp_path: Path, clean_env) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("notes\n")
    _session(run_cli, project)
    sid = db_rows(clean_env, "SELECT id FROM sessions")[0][0]
    listing = run_cli("sessions", "list", cwd=project)
    assert sid in listing.stdout and "Summarise notes.txt" in listing.stdout
    assert run_cli("sessions", "list", cwd=tmp_path).stdout == "no sessions\n"
    assert sid in run_cli("sessions", "list", "--all", cwd=tmp_path).stdout
    shown = run_cli("sessions", "show", sid[:6], cwd=project).stdout
    assert "## User" in shown and "### Tool call `read_file`" in shown and "L1: notes" in shown
    env = {"MY_API_KEY": "sk-live-1234567890abcdef"}
    exported = json.loads(run_cli("sessions", "export", sid, "--format", "json", env=env).stdout)
    assert [m["role"] for m in exported["messages"]] == ["user", "assistant", "user", "assistant"]
    assert "sk-live-1234567890abcdef" not in json.dumps(exported)  # masked in exports
    out = tmp_path / "s.md"
    assert run_cli("sessions", "export", sid, "-o", str(out), env=env).returncode == 0
    assert out.read_text().startswith("# Summarise notes.txt") and "****" in out.read_text()
    fork = run_cli("sessions", "fork", sid).stdout.strip()
    assert fork and fork != sid
    assert len(db_rows(clean_env, "SELECT seq FROM messages WHERE session_id = ?", fork)) == 4
    assert run_cli("sessions", "delete", sid).stdout.strip() == f"deleted session {sid}"
    assert db_rows(clean_env, "SELECT id FROM sessions") == [(fork,)]
    missing = run_cli("sessions", "show", "zzz")
    assert missing.returncode == 2 and "no session 'zzz'" in missing.stderr


def test_compact_on_demand(run_cli, tmp_path: Path, clean_env) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text("notes\n" * 50)
    _session(run_cli, project)
    with FakeLLM([Turn(text="one more")]) as fake:
        run_cli("--headless", "--continue", "-p", "and then?", cwd=project, env=anthropic_env(fake))
    sid = db_rows(clean_env, "SELECT id FROM sessions")[0][0]
    with SummarisingFake([], "SUMMARY: notes were read") as fake:
        proc = run_cli("sessions", "compact", sid, cwd=project, env=anthropic_env(fake))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"compacted session {sid}")
    with FakeLLM([Turn(text="ok")]) as fake:
        run_cli("--headless", "--continue", "-p", "next", cwd=project, env=anthropic_env(fake))
        first = json.dumps(fake.requests[0]["json"]["messages"][0])
    assert "SUMMARY: notes were read" in first
