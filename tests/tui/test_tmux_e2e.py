"""The real ``aiagent`` in a real terminal (tmux) against FakeLLM."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

from tmuxdriver import Tmux, llm_env

from aiagent.testing import FakeLLM, ToolCall, Turn

ANSWER = ("# Result\n\nThe answer is **forty-two**.\n\n```python\nprint(42)\n```\n\n"
          "- first point\n- second point\n\nAll done.")


def start(tmux: Tmux, fake: FakeLLM, env: dict[str, str], project: Path,
          args: list[str] | None = None, width: int = 80) -> None:
    tmux.start(args or [], llm_env(env, fake), project, width=width)
    tmux.wait_for("ctrl-c twice quits")
    tmux.wait_idle()


def ask(tmux: Tmux, text: str) -> None:
    tmux.type(text)
    tmux.send("Enter")


def tool_results(fake: FakeLLM) -> list[str]:
    found = []
    for request in fake.requests:
        for message in request["json"].get("messages", []):
            content = message.get("content")
            if isinstance(content, list):
                found += [json.dumps(b.get("content")) for b in content
                          if b.get("type") == "tool_result"]
    return found


def test_streamed_markdown_answer(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    with FakeLLM([Turn(text=ANSWER, text_chunks=25, chunk_delay=0.02)]) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "what is the answer?")
        screen = tmux.wait_for("All done.")
        tmux.wait_idle()  # the rest of the stream (usage, stop) arrives after the text
    assert "› what is the answer?" in screen
    assert "The answer is forty-two." in screen and "**" not in screen
    assert "print(42)" in screen and "```" not in screen
    assert "• first point" in screen
    tmux.wait_idle()
    tmux.wait_for("claude-sonnet-4-5")  # the status line, back once the turn is over


def test_approved_edit_shows_its_diff(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    (project / "notes.txt").write_text("old line\nkept\n")
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "notes.txt",
                                                       "content": "new line\nkept\n"})]),
              Turn(text="I rewrote the notes.")]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "rewrite the notes")
        screen = tmux.wait_for("Apply this change? (write_file)")
        assert "-old line" in screen and "+new line" in screen
        assert (project / "notes.txt").read_text() == "old line\nkept\n"
        tmux.send("y")
        tmux.wait_for("I rewrote the notes.")
    assert (project / "notes.txt").read_text() == "new line\nkept\n"
    assert "✓ allowed once" in tmux.everything()


def test_denied_shell_command(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "touch created.txt"})]),
              Turn(text="Understood, I did not run it.")]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "make a file")
        screen = tmux.wait_for("Run this command? (shell_command)")
        assert "$ touch created.txt" in screen
        tmux.send("n")
        tmux.wait_for("Understood, I did not run it.")
        results = tool_results(fake)
    assert not (project / "created.txt").exists()
    assert any("declined" in r for r in results)
    assert "✗ denied" in tmux.everything()


def test_always_is_not_asked_again_after_a_restart(
    tmux: Tmux, ui_env: dict[str, str], project: Path
) -> None:
    call = ToolCall("shell_command", {"command": "echo persisted-grant"})
    with FakeLLM([Turn(tool_calls=[call]), Turn(text="first run done")]) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "say it")
        tmux.wait_for("Run this command?")
        tmux.send("a")
        tmux.wait_for("first run done")
        tmux.wait_idle()  # the turn has ended and the input line is back before Ctrl-D
        tmux.send("C-d")
        assert tmux.exit_code() == 0
    tmux.close()
    again = Tmux()
    try:
        with FakeLLM([Turn(tool_calls=[call]), Turn(text="second run done")]) as fake:
            start(again, fake, ui_env, project)
            ask(again, "say it again")
            screen = again.wait_for("second run done")
            results = tool_results(fake)
        assert "Run this command?" not in screen
        assert any("persisted-grant" in r for r in results)
    finally:
        again.close()


def test_esc_stops_a_long_command(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    marker = "sleep 47.123"
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": f"echo started; {marker}"})]),
              Turn(text="after the stop")]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "run the long thing")
        tmux.wait_for("Run this command?")
        tmux.send("y")
        tmux.wait_for("started")
        began = time.monotonic()
        tmux.send("Escape")
        tmux.wait_for("■ interrupted", timeout=10)
        assert time.monotonic() - began < 5
        tmux.wait_idle()
        ask(tmux, "are you there?")
        tmux.wait_for("after the stop")
        results = tool_results(fake)
    # the cancelled call was closed with a result, so the history stays valid
    assert any("not run" in r or "cancel" in r for r in results), results
    assert not _running(marker), "the cancelled command is still running"


def _running(pattern: str) -> bool:
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        done = subprocess.run(["pgrep", "-f", pattern], capture_output=True)
        if done.returncode != 0:
            return False
        time.sleep(0.2)
    return True


def test_undo_restores_the_file(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    (project / "app.py").write_text("VALUE = 1\n")
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "app.py",
                                                       "content": "VALUE = 2\n"})]),
              Turn(text="Changed the value.")]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "change the value")
        tmux.wait_for("Apply this change?")
        tmux.send("y")
        tmux.wait_for("Changed the value.")
        assert (project / "app.py").read_text() == "VALUE = 2\n"
        tmux.wait_idle()  # the turn has ended (on a loaded machine the text shows first)
        ask(tmux, "/undo")
        tmux.wait_for("restored 1 file(s) changed by turn 1")
    assert (project / "app.py").read_text() == "VALUE = 1\n"
    assert not (project / ".git").exists()


def test_sixty_columns_nothing_cut_or_overlapping(
    tmux: Tmux, ui_env: dict[str, str], project: Path
) -> None:
    command = "python3 -c 'print(1)' && echo a-rather-long-command-line-that-wraps"
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": command})]),
              Turn(text="ok")]
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project, width=60)
        ask(tmux, "go")
        screen = tmux.wait_for("[esc] no, and stop")
        lines = screen.splitlines()
        box = [ln.rstrip() for ln in lines if ln.startswith(("╭", "│", "╰"))]
        assert box and all(len(ln) == 60 for ln in box), box
        assert all(ln[-1] in "╮│╯" for ln in box)
        for label in ("[y] yes, once", "[s] this session", "[p] always in this project",
                      "[a] always", "[n] no"):
            assert sum(label in ln for ln in lines) == 1, label
        tmux.send("n")
        tmux.wait_for("ok")
        tmux.wait_idle()
        bottom = [ln for ln in tmux.screen().splitlines() if ln.strip()][-2:]
    assert bottom[0].startswith("claude-sonnet-4-5 · prompt")
    assert bottom[1].startswith("⏎ send") and not bottom[1].rstrip().endswith(("…", "-"))


def test_no_color_and_quit_keys(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    with FakeLLM([Turn(text="plain **words** here")]) as fake:
        start(tmux, fake, {**ui_env, "NO_COLOR": "1"}, project)
        ask(tmux, "hi")
        tmux.wait_for("plain words here")
        coloured = tmux.screen(colours=True)
        codes = re.findall(r"\x1b\[([0-9;]*)m", coloured)
        colours = [c for c in codes for p in c.split(";") if re.fullmatch(r"3[0-8]|9[0-7]", p)]
        assert not colours, colours
        tmux.send("C-c")
        tmux.wait_for("Press Ctrl-C again to quit")
        tmux.send("C-c")
        assert tmux.exit_code() == 0


def test_plain_line_mode_when_stdout_is_not_a_terminal(
    tmux: Tmux, ui_env: dict[str, str], project: Path
) -> None:
    with FakeLLM([Turn(text="line mode **answer**")]) as fake:
        tmux.start([], llm_env(ui_env, fake), project, pipe="cat")
        tmux.wait_for("\n>")
        ask(tmux, "hello")
        screen = tmux.wait_for("line mode **answer**")
        tmux.send("C-d")
        tmux.wait_for("__AIAGENT_EXIT=")
    assert "›" not in screen and "claude-sonnet-4-5 ·" not in screen


def test_continue_shows_the_history(tmux: Tmux, ui_env: dict[str, str], project: Path) -> None:
    with FakeLLM([Turn(text="remember the word pineapple")]) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "give me a word")
        tmux.wait_for("remember the word pineapple")
        tmux.send("C-d")
        assert tmux.exit_code() == 0
    tmux.close()
    again = Tmux()
    try:
        with FakeLLM([Turn(text="it was pineapple")]) as fake:
            start(again, fake, ui_env, project, args=["--continue"])
            screen = again.wait_for("resumed session")
            assert "› give me a word" in screen and "remember the word pineapple" in screen
            again.send("Up")  # the input history is kept across sessions
            again.wait_for("› give me a word", after=1)
            again.send("C-u")
            ask(again, "which word?")
            again.wait_for("it was pineapple")
            sent = fake.requests[-1]["json"]["messages"]
        assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    finally:
        again.close()


def test_type_ahead_is_queued_and_paste_is_folded(
    tmux: Tmux, ui_env: dict[str, str], project: Path
) -> None:
    script = [Turn(text="slow answer", text_chunks=20, chunk_delay=0.15),
              Turn(text="second answer"), Turn(text="got the paste")]
    pasted = "\n".join(f"pasted line {n}" for n in range(1, 21))
    with FakeLLM(script) as fake:
        start(tmux, fake, ui_env, project)
        ask(tmux, "first")
        tmux.wait_for("esc to interrupt")
        tmux.type("next one")
        tmux.send("Enter")
        tmux.wait_for("› next one (queued)")
        tmux.wait_for("second answer")
        tmux.wait_idle()
        tmux._tmux("set-buffer", "--", pasted)
        tmux._tmux("paste-buffer", "-p", "-t", "main")
        tmux.wait_for("[Pasted text #1 +20 lines]")
        tmux.send("Enter")
        tmux.wait_for("got the paste")
        tmux.send("Up")
        tmux.wait_for("› [Pasted text #1 +20 lines]", after=1)
        sent = [r["json"]["messages"][-1]["content"] for r in fake.requests]
    texts = [c if isinstance(c, str) else c[0]["text"] for c in sent]
    assert texts == ["first", "next one", pasted]
