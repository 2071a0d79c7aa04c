"""The real ``aiagent`` in tmux at 60 and 200 columns: the first run without a key, and
an approval box. The screen is read back from the terminal, so what is checked is what
a user sees: nothing cut mid-word, every option whole on its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from snapshots import assert_fits
from tmuxdriver import Tmux, llm_env

from aiagent.testing import FakeLLM, ToolCall, Turn

OPTIONS = ("[y] yes, once", "[s] this session", "[p] always in this project", "[a] always",
           "[n] no", "[esc] no, and stop")
COMMAND = ("pytest -q tests/permissions tests/security/adversarial --maxfail=1 --durations=5 "
           "-k 'not slow and not network' && touch ran.txt")
FIRST_RUN = ("To start chatting, give aiagent a key for anthropic, or use a local model: "
             "set the key in your shell and start again: export ANTHROPIC_API_KEY=… "
             "aiagent config set-key anthropic /provider ollama here OPENAI_BASE_URL "
             "aiagent security-audit works offline, with no key.")


def flat(screen: str) -> str:
    return " ".join(screen.split())


@pytest.mark.parametrize("width", [60, 200])
def test_first_run_without_a_key(tmux: Tmux, ui_env: dict[str, str], project: Path,
                                 width: int) -> None:
    env = {k: v for k, v in ui_env.items() if not k.startswith(("ANTHROPIC", "OPENAI"))}
    tmux.start([], env, project, width=width, height=40)
    tmux.wait_for("/quit leaves.")
    tmux.wait_for("no API key ·")  # the status line says why, instead of "starting…"
    screen = tmux.screen()
    assert "starting…" not in screen
    for needed in ("export ANTHROPIC_API_KEY=…", "aiagent config set-key anthropic",
                   "/provider ollama", "OPENAI_BASE_URL", "aiagent security-audit works offline"):
        assert needed in flat(screen), (needed, screen)
    assert_fits(screen, width, [FIRST_RUN])
    tmux.type("/quit")
    tmux.send("Enter")
    assert tmux.exit_code() == 0


def test_keys_typed_before_the_editor_runs_are_kept(tmux: Tmux, ui_env: dict[str, str],
                                                    project: Path) -> None:
    """The first frame is painted before the line editor loads: what is typed at once
    is neither echoed over the frame nor lost, and Enter sends it."""
    with FakeLLM([Turn(text="got it")]) as fake:
        tmux.start([], llm_env(ui_env, fake), project, width=80)
        tmux.wait_for("›")
        tmux.type("early words")
        tmux.send("Enter")
        tmux.wait_for("got it")
        tmux.wait_idle()
        sent = fake.requests[0]["json"]["messages"][-1]["content"]
    text = sent if isinstance(sent, str) else sent[0]["text"]
    assert text.startswith("early words")
    assert tmux.everything().count("early words") == 1


def test_terminal_mode_is_restored_on_exit(tmux: Tmux, ui_env: dict[str, str],
                                           project: Path) -> None:
    with FakeLLM([]) as fake:
        tmux.start([], llm_env(ui_env, fake), project, width=80, after="stty -a")
        tmux.wait_idle()
        tmux.send("C-d")
        assert tmux.exit_code() == 0
        modes = tmux.everything().split("__AIAGENT_EXIT=", 1)[1].split()
    assert "echo" in modes and "icanon" in modes and "icrnl" in modes


@pytest.mark.parametrize("width", [60, 200])
def test_approval_options_stay_whole(tmux: Tmux, ui_env: dict[str, str], project: Path,
                                     width: int) -> None:
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": COMMAND})]),
              Turn(text="understood, not running it")]
    with FakeLLM(script) as fake:
        tmux.start([], llm_env(ui_env, fake), project, width=width, height=40)
        tmux.wait_idle()
        tmux.type("run the tests")
        tmux.send("Enter")
        screen = tmux.wait_for("[esc] no, and stop")
        lines = screen.splitlines()
        for option in OPTIONS:
            assert any(option in line for line in lines), (option, screen)
        assert_fits(screen, width, [COMMAND, *OPTIONS])
        tmux.send("n")
        tmux.wait_for("understood, not running it")
    assert not (project / "ran.txt").exists()
