"""The rendered screen at 60, 80, 120 and 200 columns, compared with golden files.

Each scene is rendered to text the way the UI prints it (the turn view on a rich console
of that width, the approval box, the banner and input line, the line-mode app without a
key) and must (1) match ``golden/SCENE_WIDTH.txt`` exactly and (2) pass
:func:`snapshots.assert_fits`: nothing wider than the window, no word cut across lines.
Regenerate the golden files with ``UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from lineapp import run_app
from snapshots import assert_fits, check_golden

from aiagent.agent.tools.textio import unified_diff
from aiagent.contracts.events import (
    ApprovalRequestEvent,
    FileDiffEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolOutputEvent,
    ToolResultEvent,
    TurnEndEvent,
)
from aiagent.frontends.tui.approval import approval_panel
from aiagent.frontends.tui.firstframe import STARTING, banner_lines, hint_line
from aiagent.frontends.tui.preview import preview_diff
from aiagent.frontends.tui.render import diff_text, make_console
from aiagent.frontends.tui.status import Status, status_line
from aiagent.frontends.tui.terminal import TermInfo
from aiagent.frontends.tui.view import TurnView

WIDTHS = (60, 80, 120, 200)
ANSWER = """# Where the configuration is read

The settings are loaded **once** at start-up, validated, and passed down as an object;
nothing reads the environment later. The loader merges five layers — package defaults,
the user file, the project file, environment variables and flags — and the last one wins.

1. `Settings.load` reads the files and checks every field.
2. A wrong value is reported with its file, field and reason.

```python
def load(cwd: Path, flags: dict[str, object]) -> Settings:
    layers = [defaults(), user_file(), project_file(cwd), environment(), flags]  # later wins
    return Settings.merge(layers)
```

That is all it takes.
"""
LONG_COMMAND = ("pytest -q tests/permissions tests/security/adversarial --maxfail=1 "
                "--durations=5 -k 'not slow and not network' && ruff check src tests bench")
OLD = "def area(width, height):\n    return width * height\n\n\nprint(area(2, 3))\n"
NEW = ("def area(width: float, height: float) -> float:\n"
       "    \"\"\"The area of a rectangle, in the square of whatever unit the sides are given "
       "in, which callers must keep consistent themselves.\"\"\"\n"
       "    return width * height\n\n\nprint(area(2, 3))\n")
EMOJI = "Party 🎉 done: ✅ all 42 tests pass, ⚠️ one warning, 日本語のテキスト too."


def term(width: int) -> TermInfo:
    return TermInfo(tty=False, color=False, dark=True, width=width)


def turn_screen(events: list[object], width: int) -> str:
    """What the turn view prints for ``events`` at ``width`` columns."""
    console = make_console(term(width), file=io.StringIO(), width=width)
    view = TurnView(console, term(width))
    for event in events:
        view.handle(event)  # type: ignore[arg-type]
    asyncio.run(view.stop())
    return console.file.getvalue()  # type: ignore[attr-defined]


def printed(renderable: object, width: int) -> str:
    console = make_console(term(width), file=io.StringIO(), width=width)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def input_line(width: int, status: Status) -> str:
    """The rule, prompt, status and hints as the input line draws them (no menu rows)."""
    inner = max(10, width - 1)
    return "\n".join(["─" * inner, "› ", status_line(status, inner), hint_line(inner)]) + "\n"


def streamed(text: str, size: int = 7) -> list[object]:
    return [TextDeltaEvent(text[i : i + size]) for i in range(0, len(text), size)]


def scene(name: str, width: int, screen: str, sources: list[str]) -> None:
    assert_fits(screen, width, sources)
    check_golden(f"{name}_{width}", screen)


@pytest.mark.parametrize("width", WIDTHS)
def test_banner_and_input_line(width: int) -> None:
    lines = banner_lines("0.1.0", "~/projects/aiagent-demo/services/api", width, tty=True)
    screen = "\n".join(lines) + "\n" + input_line(width, Status(model=STARTING))
    scene("banner", width, screen, ["aiagent 0.1.0", "/help for help", "esc stops a turn",
                                    "ctrl-c twice quits", "~/projects/aiagent-demo/services/api"])


@pytest.mark.parametrize("width", WIDTHS)
def test_streamed_markdown_answer(width: int) -> None:
    screen = turn_screen([*streamed(ANSWER), TurnEndEvent(1, "end_turn")], width)
    assert "**" not in screen and "```" not in screen and "That is all it takes." in screen
    shown = ANSWER.replace("```python", "").replace("`", "").replace("**", "")
    scene("markdown", width, screen, [shown])


@pytest.mark.parametrize("width", WIDTHS)
def test_approval_box(width: int, tmp_path: Path) -> None:
    from aiagent.agent.tools.base import ToolRegistry
    from aiagent.contracts.tools import effect_of

    tools = ToolRegistry()  # the panel reads the tool's declared effect, as the loop sends it
    shell = ApprovalRequestEvent("a1", "shell_command", "run tests", {"command": LONG_COMMAND},
                                 effect=effect_of(tools.get("shell_command")))
    create = ApprovalRequestEvent("a2", "write_file", "write notes.md",
                                  {"file_path": "notes.md", "content": "# Notes\n\nfirst\n"},
                                  options=("once", "session", "deny"),
                                  effect=effect_of(tools.get("write_file")))
    preview = preview_diff("write_file", dict(create.args), tmp_path)
    assert preview.startswith("--- /dev/null\n+++ b/notes.md\n")
    screen = (printed(approval_panel(shell, width), width) + printed(diff_text(preview), width)
              + printed(approval_panel(create, width), width))
    for label in ("[y] yes, once", "[s] this session", "[p] always in this project",
                  "[a] always", "[n] no", "[esc] no, and stop"):
        assert any(label in line for line in screen.splitlines()), (label, screen)
    scene("approval", width, screen, [LONG_COMMAND, "yes, once", "this session",
                                      "always in this project", "no, and stop"])


@pytest.mark.parametrize("width", WIDTHS)
def test_diff_with_long_lines(width: int) -> None:
    edit, create = unified_diff(OLD, NEW, "geometry/area.py"), unified_diff("", "new\n", "N.md")
    events = [ToolCallEvent("e1", "write_file", {"file_path": "geometry/area.py"}),
              FileDiffEvent("e1", "geometry/area.py", edit),
              ToolResultEvent("e1", "write_file", "wrote geometry/area.py", False),
              ToolCallEvent("e2", "write_file", {"file_path": "N.md"}),
              FileDiffEvent("e2", "N.md", create),
              ToolResultEvent("e2", "write_file", "wrote N.md", False)]
    screen = turn_screen(events, width)
    assert "--- /dev/null" in screen and "+++ b/N.md" in screen
    rows = [line for line in screen.splitlines() if line.startswith("    ")]
    assert all(row[4:5] in "+- @" for row in rows if row.strip()), screen  # every row marked
    scene("diff", width, screen, [edit, create])


@pytest.mark.parametrize("width", WIDTHS)
def test_emoji_and_wide_characters(width: int) -> None:
    output = ("🎉" * 120) + "\n" + EMOJI + "\n"
    events = [*streamed(EMOJI + "\n\n- ✅ first\n- 🚀 second\n"), TurnEndEvent(1, "tool_use"),
              ToolCallEvent("s1", "shell_command", {"command": "./celebrate.sh 🎉"}),
              ToolOutputEvent("s1", "stdout", output),
              ToolResultEvent("s1", "shell_command", "exit 0", False)]
    screen = turn_screen(events, width)
    lines = screen.splitlines()
    assert any(line.startswith("  ⎿  🎉🎉") for line in lines), screen  # not a bare "⎿"
    assert all(line.strip() != "⎿" for line in lines)
    scene("emoji", width, screen, [EMOJI])


@pytest.mark.parametrize("width", WIDTHS)
def test_first_run_without_a_key(width: int, ui_env: dict[str, str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    project = Path(ui_env["HOME"]) / "project"
    project.mkdir()
    monkeypatch.setenv("HOME", ui_env["HOME"])
    code, out = run_app(["/quit"], {**ui_env, "AIAGENT_NO_HISTORY": "1"}, project,
                        monkeypatch, width=width)
    assert code == 0
    status = Status(model="claude-sonnet-4-5", provider="anthropic", note="no API key")
    assert out.endswith("> ")  # line mode's prompt, answered by "/quit" (not echoed)
    screen = out.removesuffix("> ") + input_line(width, status)
    for needed in ("export ANTHROPIC_API_KEY=…", "aiagent config set-key anthropic",
                   "/provider ollama", "OPENAI_BASE_URL", "aiagent security-audit works offline"):
        assert needed in " ".join(screen.split()), (needed, screen)
    scene("first_run", width, screen, ["security-audit works offline", "config set-key"])


def test_the_checks_catch_a_cut_word_and_a_wide_line() -> None:
    assert_fits("the\nconfiguration is read", 60, ["the configuration is read"])
    with pytest.raises(AssertionError, match="cut across lines"):
        assert_fits("the confi\nguration is read", 60, ["the configuration is read"])
    with pytest.raises(AssertionError, match="cells wide"):
        assert_fits("🎉" * 31, 60, [])  # 31 characters, 62 cells
    with pytest.raises(AssertionError, match="differs from"):
        check_golden("banner_60", "something else\n")
