"""A project skill in the real ``aiagent`` in a real terminal (tmux) against FakeLLM:
``/skill NAME`` shows the permission box, ``a`` grants it for good, the model calls the
skill's tool; after a restart the skill activates without asking."""

from __future__ import annotations

from pathlib import Path

from skillproject import write_peek
from tmuxdriver import Tmux, llm_env

from aiagent.testing import FakeLLM, ToolCall, Turn

CALL = ToolCall("first_line", {"path": "notes.txt"})


def start(tmux: Tmux, fake: FakeLLM, env: dict[str, str], project: Path) -> None:
    tmux.start([], llm_env(env, fake), project)
    tmux.wait_for("ctrl-c twice quits")
    tmux.wait_idle()


def enter(tmux: Tmux, text: str) -> None:
    tmux.type(text)
    tmux.send("Enter")


def test_skill_permission_box_then_always(tmux: Tmux, ui_env: dict[str, str],
                                          project: Path) -> None:
    write_peek(project)
    with FakeLLM([Turn(tool_calls=[CALL]), Turn(text="peek done")]) as fake:
        tmux.start([], llm_env(ui_env, fake), project)
        screen = tmux.wait_for("Trust this folder?")  # the project's skill has code
        assert "skills with code: peek (starlark)" in screen
        tmux.send("a")  # always: recorded, so the second run below does not ask
        tmux.wait_for("✓ trusted")
        tmux.wait_idle()
        enter(tmux, "/skill peek")
        screen = tmux.wait_for('Skill "peek" wants to activate')
        assert "✓ file:read — Read files within the project" in screen
        assert "[y] allow once" in screen and "[a] allow always" in screen
        tmux.send("a")
        tmux.wait_for("✓ skill peek active · tools: first_line")
        assert "✓ allowed always" in tmux.everything()
        tmux.wait_idle()
        enter(tmux, "peek at the notes")
        tmux.wait_for("peek done")
        tmux.wait_idle()  # the turn is over: Ctrl-D on the empty input line quits
        screen = tmux.everything()
        tmux.send("C-d")
        assert tmux.exit_code() == 0
    assert "first_line notes.txt" in screen and "first line: alpha bravo charlie" in screen
    tmux.close()
    again = Tmux()
    try:
        with FakeLLM([Turn(tool_calls=[CALL]), Turn(text="second peek")]) as fake:
            start(again, fake, ui_env, project)
            enter(again, "/skill peek")
            again.wait_for("✓ skill peek active")
            again.wait_idle()
            enter(again, "peek again")
            screen = again.wait_for("second peek")
        assert "wants to activate" not in screen and "Trust this folder?" not in screen
        assert "first line: alpha bravo charlie" in screen
    finally:
        again.close()
