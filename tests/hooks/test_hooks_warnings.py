"""Headless runs keep reporting hook problems on stderr (the interactive UI's notice
handler, tests/tui/test_log_notices.py, is installed only there)."""

from __future__ import annotations

from hookkit import hook


def test_headless_hook_warning_is_a_stderr_line(run_agent, user_config) -> None:
    user_config(hook("PreToolUse", "echo boom-from-hook >&2; exit 1"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert ran.proc.stdout.strip() == "All done."
    lines = [ln for ln in ran.proc.stderr.splitlines() if ln.startswith("aiagent: hooks: ")]
    assert len(lines) == 1, ran.proc.stderr
    assert "PreToolUse hook" in lines[0] and "exited with code 1: boom-from-hook" in lines[0]
    assert "! hooks:" not in ran.proc.stdout + ran.proc.stderr

