"""The real ``aiagent`` in a real terminal (tmux) against FakeLLM: a ``task`` child's steps
are ``[general#1] …`` lines, and its approval request says which child asks."""

from __future__ import annotations

from pathlib import Path

from test_tmux_e2e import ask, start
from tmuxdriver import Tmux

from aiagent.testing import FakeLLM, ToolCall, Turn


def test_a_child_s_steps_and_approval_are_labelled(tmux: Tmux, ui_env: dict[str, str],
                                                   project: Path) -> None:
    delegate = ToolCall("task", {"description": "Make a file", "prompt": "Create made.txt"})
    script = [Turn(text="Delegating.", tool_calls=[delegate]),
              Turn(tool_calls=[ToolCall("shell_command", {"command": "touch made.txt"})]),
              Turn(text="Child made it."),
              Turn(text="Parent says done.")]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project, width=100)
        ask(tmux, "delegate the file")
        screen = tmux.wait_for("Run this command?")
        assert "[general#1] Run this command? (shell_command)" in screen, screen
        assert "[general#1] → shell_command" in screen  # before the question: who asks
        assert "$ touch made.txt" in screen
        tmux.send("y")
        tmux.wait_for("Parent says done.")
        tmux.wait_idle()
    everything = tmux.everything()
    assert "[general#1] → shell_command" in everything
    assert "[general#1] ← shell_command" in everything
    assert "[general#1] done: completed, 2 turn(s)" in everything
    assert (project / "made.txt").exists()


CHEAP = "---\nname: cheap\ndescription: A cheap helper.\nmodel: haiku\n---\nBe brief.\n"


def test_a_child_is_priced_at_its_own_model(tmux: Tmux, ui_env: dict[str, str],
                                             project: Path) -> None:
    agents = Path(ui_env["XDG_CONFIG_HOME"]) / "aiagent" / "agents"
    agents.mkdir(parents=True)
    (agents / "cheap.md").write_text(CHEAP)
    delegate = ToolCall("task", {"description": "Say hi", "prompt": "Say hi", "agent": "cheap"})
    script = [Turn(tool_calls=[delegate], usage=(10_000, 1_000)),
              Turn(text="hi from haiku", usage=(1_000_000, 100_000)),  # the child, on haiku
              Turn(text="Parent says done.", usage=(10_000, 1_000))]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project, width=120)
        ask(tmux, "delegate")
        tmux.wait_for("Parent says done.")
        tmux.wait_idle()
        # sonnet $3/$15, haiku $1/$5 per million: 0.09 + 1.50; all at sonnet would be $4.59
        screen = tmux.wait_for("$1.59")
        assert "1 subagent(s) 1.1M tok" in screen
        ask(tmux, "/cost")
        screen = tmux.wait_for("estimated cost: $1.5900")
    assert "subagents on claude-haiku-4-5: 1 · input 1.0M · output 100k · $1.5000" in screen
    assert "[cheap#1] done: completed, 1 turn(s), tokens in/out 1000000/100000 · ~$1.5000" \
        in tmux.everything()
