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
