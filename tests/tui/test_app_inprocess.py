"""The app in line mode, in-process: commands, a turn, checkpoints, !shell, against FakeLLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from lineapp import run_app

from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def env(ui_env: dict[str, str]) -> dict[str, str]:
    return {**ui_env, "AIAGENT_NO_HISTORY": "1"}


def test_commands_turns_and_undo(env: dict[str, str], project: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "x.txt").write_text("before\n")
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "x.txt",
                                                       "content": "after\n"})]),
              Turn(text="edited"), Turn(text="the shell said hi-from-shell")]
    lines = ["/help", "/model claude-opus-4-5", "/approval-mode auto-edit", "edit x",
             "/diff", "/undo", "!echo hi-from-shell", "what did it say?", "/cost",
             "/sessions", "/permissions", "/rewind", "/bogus", "/quit", "never read"]
    with FakeLLM(script) as fake:
        code, out = run_app(lines, {**env, "ANTHROPIC_BASE_URL": fake.url,
                                    "ANTHROPIC_API_KEY": "sk-test-1234567890"},
                            project, monkeypatch)
        sent = fake.requests
    assert code == 0
    assert "/undo" in out and "/rewind" in out and "Ctrl-O" in out  # help
    assert "model set to claude-opus-4-5" in out
    assert "approval mode set to auto-edit" in out
    assert "→ write_file x.txt" in out and "edited" in out
    assert "+after" in out  # /diff
    assert "restored 1 file(s) changed by turn 1" in out
    assert (project / "x.txt").read_text() == "before\n"
    assert "hi-from-shell" in out and "exit code 0 · shared" in out
    last_user = sent[-1]["json"]["messages"][-1]["content"]
    text = last_user if isinstance(last_user, str) else last_user[0]["text"]
    assert text.startswith("what did it say?") and "hi-from-shell" in text
    assert "undid the file changes" in text
    assert sent[0]["json"]["model"] == "claude-opus-4-5"
    assert "estimated cost: $" in out
    assert "edit x" in out  # the session list shows its title
    assert "unknown command /bogus" in out
    assert "never read" not in "".join(str(r["json"]) for r in sent)


def test_line_mode_approval_and_denial(env: dict[str, str], project: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "touch nope.txt"})]),
              Turn(text="not run")]
    with FakeLLM(script) as fake:
        code, out = run_app(["do it", "n"], {**env, "ANTHROPIC_BASE_URL": fake.url,
                                             "ANTHROPIC_API_KEY": "sk-test-1234567890"},
                            project, monkeypatch)
    assert code == 0
    assert "Run this command? (shell_command)" in out and "✗ denied" in out
    assert not (project / "nope.txt").exists()
    assert "\x1b[" not in out


def test_bad_config_is_one_line_and_exit_2(env: dict[str, str], project: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text("[agent]\nmax_turns = 'many'\n")
    code, _ = run_app(["hello"], env, project, monkeypatch)
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("aiagent: error:") and "max_turns" in err and "\n" not in err


def test_missing_key_keeps_the_ui_up(env: dict[str, str], project: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_app(["hello", "/provider ollama", "/quit"], env, project, monkeypatch)
    assert code == 0
    assert "no model provider is available" in out and "cannot send" in out
    assert "provider set to ollama (model llama3.1)" in out


def test_rewind_restores_files_and_forks_the_conversation(
    env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def write(name: str, text: str) -> Turn:
        return Turn(tool_calls=[ToolCall("write_file", {"file_path": name, "content": text})])

    script = [Turn(text="first answer"), write("a.txt", "A\n"), Turn(text="wrote a"),
              write("b.txt", "B\n"), Turn(text="wrote b"), Turn(text="fresh start")]
    lines = ["/approval-mode full-auto", "just talk", "write a", "write b", "/rewind",
             "/rewind 2", "after the rewind", "/sessions"]
    with FakeLLM(script) as fake:
        code, out = run_app(lines, {**env, "ANTHROPIC_BASE_URL": fake.url,
                                    "ANTHROPIC_API_KEY": "sk-test-1234567890"},
                            project, monkeypatch)
        last = fake.requests[-1]["json"]["messages"]
    assert code == 0
    assert "    2  write a" in out and "    3  write b" in out
    assert "rewound to before turn 2: 2 file(s) restored, conversation forked at 2 messages" in out
    assert not (project / "a.txt").exists() and not (project / "b.txt").exists()
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert "just talk (rewound)" in out
