"""Where hooks come from: the config layers, trust, Claude Code's settings files (opt-in),
and a misconfiguration is one loud line, never a hook that silently does not fire."""

from __future__ import annotations

import json
from pathlib import Path

from hookkit import hook


def write_claude(folder: Path, hooks: dict, name: str = "settings.json") -> Path:
    path = folder / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def claude_pre(command: str, matcher: str = "Read") -> dict:
    return {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command,
                                                           "timeout": 5}]}]}


def project_hook(project: Path, text: str) -> Path:
    path = project / ".agent" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_an_unknown_event_is_a_one_line_error_naming_file_and_key(run_agent, user_config) -> None:
    path = user_config(hook("PreToolUs", "true"))
    ran = run_agent()
    lines = ran.proc.stderr.strip().splitlines()
    assert ran.proc.returncode == 2 and len(lines) == 1
    assert str(path) in lines[0] and "PreToolUs" in lines[0] and "PreToolUse" in lines[0]
    assert ran.requests == []


def test_an_invalid_matcher_is_a_one_line_error_naming_file_and_key(run_agent, run_cli, user_config,
                                                                    project: Path) -> None:
    path = user_config(hook("PreToolUse", "true") + hook("PostToolUse", "true", matcher="read_file("))
    ran = run_agent()
    lines = ran.proc.stderr.strip().splitlines()
    assert ran.proc.returncode == 2 and len(lines) == 1, ran.proc.stderr
    assert f"{path}: [[hooks.PostToolUse]] #1: matcher 'read_file('" in lines[0]
    assert "not a valid regular expression" in lines[0]
    listed = run_cli("hooks", "list", cwd=project)
    assert listed.returncode == 2 and "not a valid regular expression" in listed.stderr


def test_a_matcher_naming_no_tool_is_reported(run_agent, user_config) -> None:
    user_config(hook("PreToolUse", "true", matcher="Shell|read_file"))
    ran = run_agent()
    assert ran.proc.returncode == 0
    assert "matcher 'Shell|read_file' names no known tool (Shell)" in ran.proc.stderr


def test_project_hooks_do_not_run_in_an_untrusted_folder(run_agent, run_cli, project: Path,
                                                         tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    config = project_hook(project, hook("PreToolUse", f"touch {marker}"))
    ran = run_agent()
    assert ran.proc.returncode == 0, ran.proc.stderr
    assert not marker.exists()
    assert "1 project hook(s) not run: this folder is not trusted" in ran.proc.stderr
    listed = run_cli("hooks", "list", cwd=project)
    assert listed.returncode == 0
    assert f"from project: {config}: [[hooks.PreToolUse]] #1" in listed.stdout
    assert "not run: this folder is not trusted" in listed.stdout
    assert "hooks that run" not in listed.stdout
    trusted = run_agent("--trust")
    assert trusted.proc.returncode == 0 and marker.exists()


def test_project_hooks_add_to_the_users(run_agent, user_config, project: Path, tmp_path: Path) -> None:
    log = tmp_path / "log"
    user_config(hook("Stop", f"echo user >> {log}"))
    project_hook(project, hook("Stop", f"echo project >> {log}"))
    run_agent("--trust")
    assert log.read_text().split() == ["user", "project"]


def test_claude_settings_are_not_read_without_opting_in(run_agent, run_cli, project: Path,
                                                        tmp_path: Path) -> None:
    marker = tmp_path / "claude-ran"
    path = write_claude(project, claude_pre(f"touch {marker}"))
    ran = run_agent("--trust")
    assert ran.proc.returncode == 0 and not marker.exists()
    listed = run_cli("--trust", "hooks", "list", cwd=project)
    assert f"{path}: hooks" in listed.stdout and "read_claude_settings = true" in listed.stdout


def test_claude_settings_run_once_opted_in_with_claude_names(run_agent, run_cli, user_config,
                                                             project: Path, tmp_path: Path) -> None:
    saved = tmp_path / "claude.json"
    user_config("[hooks]\nread_claude_settings = true\n")
    path = write_claude(project, {
        **claude_pre(f"cat > {saved}"),
        "Notification": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "prompt", "prompt": "judge"}]}],
    })
    ran = run_agent("--trust")
    assert ran.proc.returncode == 0, ran.proc.stderr
    payload = json.loads(saved.read_text())
    assert payload["tool_name"] == "Read" and payload["aiagent_tool_name"] == "read_file"
    listed = run_cli("--trust", "hooks", "list", cwd=project).stdout
    assert f"from claude-project: {path}: hooks.PreToolUse[0].hooks[0]" in listed
    assert "aiagent has no Notification event" in listed
    assert "aiagent runs only \"command\" hooks" in listed


def test_claude_project_settings_need_trust_too(run_agent, user_config, project: Path,
                                                tmp_path: Path) -> None:
    marker = tmp_path / "claude-ran"
    user_config("[hooks]\nread_claude_settings = true\n")
    write_claude(project, claude_pre(f"touch {marker}"), name="settings.local.json")
    ran = run_agent()
    assert ran.proc.returncode == 0 and not marker.exists()
    assert "not trusted" in ran.proc.stderr


def test_the_claude_user_file_and_bash_alias(run_agent, user_config, clean_env: dict[str, str],
                                             project: Path, tmp_path: Path) -> None:
    """~/.claude/settings.json is the user's own: it runs (opted in) in any folder; its
    "Bash" matcher matches aiagent's shell tools."""
    from aiagent.testing import ToolCall, Turn

    marker = tmp_path / "bash-hook"
    user_config("[hooks]\nread_claude_settings = true\n")
    write_claude(Path(clean_env["HOME"]), claude_pre(f"touch {marker}; exit 2", matcher="Bash"))
    script = [Turn(text="run", tool_calls=[ToolCall("shell_command", {"command": "echo hi"})]),
              Turn(text="done")]
    ran = run_agent("--approve", "shell_command", script=script)
    assert marker.exists()
    assert "denied" in ran.tool_result()


def test_a_broken_claude_file_is_one_line_once_opted_in(run_agent, user_config, project: Path) -> None:
    user_config("[hooks]\nread_claude_settings = true\n")
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{not json")
    ran = run_agent("--trust")
    assert ran.proc.returncode == 2
    assert ran.proc.stderr.strip().startswith(f"aiagent: error: {path}: invalid JSON")


def test_hooks_list_json(run_cli, user_config, project: Path) -> None:
    path = user_config(hook("SessionStart", "echo hi", matcher="startup", timeout=5))
    listed = run_cli("hooks", "list", "--json", cwd=project)
    data = json.loads(listed.stdout)
    assert data["active"] == [{"event": "SessionStart", "matcher": "startup", "command": "echo hi",
                               "timeout": 5.0, "layer": "user", "source": str(path),
                               "key": "[[hooks.SessionStart]] #1"}]
