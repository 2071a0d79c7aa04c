"""Small pieces of the input side: key decoding, theme, completion, pastes, job count."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from aiagent.frontends.tui.app import running_jobs
from aiagent.frontends.tui.commands import Command, CommandTable
from aiagent.frontends.tui.completion import CommandCompleter, InputCompleter, PathCompleter
from aiagent.frontends.tui.input import expand_pastes
from aiagent.frontends.tui.terminal import decode_keys, detect, is_dark


def test_decode_keys() -> None:
    assert decode_keys(b"\x1b") == ["escape"]
    assert decode_keys(b"\x1b[A") == []  # an arrow key, ignored
    assert decode_keys(b"y") == ["y"] and decode_keys(b"\x03") == ["c-c"]
    assert decode_keys(b"ab\r") == ["a", "b", "enter"]
    assert decode_keys("é".encode()) == ["é"]


def test_theme_and_colour() -> None:
    assert is_dark({}) and is_dark({"COLORFGBG": "15;0"})
    assert not is_dark({"COLORFGBG": "0;15"}) and not is_dark({"AIAGENT_THEME": "light"})
    assert is_dark({"AIAGENT_THEME": "dark", "COLORFGBG": "0;15"})
    info = detect({"NO_COLOR": "1"})
    assert not info.color


async def _noop(app: Any, arg: str) -> None:
    return None


def completions(completer: Any, text: str) -> list[str]:
    found = completer.get_completions(Document(text, len(text)), CompleteEvent())
    return [c.text for c in found]


def table() -> CommandTable:
    commands = CommandTable(app=None)  # type: ignore[arg-type]
    commands.add(Command("resume", "resume", _noop, lambda arg: [("abc123", ""), ("abd456", "")]))
    commands.add(Command("rewind", "rewind", _noop))
    commands.add(Command("help", "help", _noop))
    return commands


def test_command_and_argument_completion() -> None:
    completer = CommandCompleter(table())
    assert completions(completer, "/re") == ["/resume", "/rewind"]
    assert completions(completer, "/resume ab") == ["abc123", "abd456"]
    assert completions(completer, "/resume abc") == ["abc123"]
    assert completions(completer, "hello /re") == []


def test_path_completion(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    (tmp_path / "my file.txt").write_text("")
    both = InputCompleter(CommandCompleter(table()), PathCompleter(lambda: tmp_path))
    assert completions(both, "look at @app") == ["src/app.py"]
    assert completions(both, "@my") == ["my\\ file.txt"]
    assert completions(both, "mail me@app") == []


def test_pastes_expand_on_send() -> None:
    pastes = {1: "line one\nline two"}
    assert expand_pastes("see [Pasted text #1 +2 lines] ok", pastes) == \
        "see line one\nline two ok"
    assert expand_pastes("[Pasted text #9 +2 lines]", pastes) == "[Pasted text #9 +2 lines]"


def test_running_jobs_found_in_tool_state() -> None:
    jobs = {1: SimpleNamespace(outcome=None), 2: SimpleNamespace(outcome="done"),
            3: SimpleNamespace(outcome=None)}
    state = {"shell.runtime": SimpleNamespace(_jobs=SimpleNamespace(jobs=jobs))}
    assert running_jobs(state) == 2
    assert running_jobs({}) == 0


def test_workflow_skills_are_slash_commands(tmp_path: Path) -> None:
    from skillproject import write_all

    from aiagent.agent.skills.host import HostServices
    from aiagent.agent.skills.loader import Source, discover
    from aiagent.agent.skills.permissions import Limits, MemoryGrantStore, PermissionGate
    from aiagent.agent.skills.runtime import SkillRuntime

    write_all(tmp_path)
    runtime = SkillRuntime(discover([Source("project", tmp_path / ".agent" / "skills")]),
                           HostServices(root=tmp_path, limits=Limits(), env={}),
                           PermissionGate(MemoryGrantStore(), str(tmp_path)))
    app = SimpleNamespace(agent=SimpleNamespace(skills=runtime))
    commands = CommandTable(app=app)  # type: ignore[arg-type]
    commands.add(Command("help", "help", _noop))
    commands.add(Command("skills", "skills", _noop))
    assert [c.name for c in commands.matching("")] == ["help", "shout", "skills"]
    assert completions(CommandCompleter(commands), "/sh") == ["/shout"]
    shout = commands.get("shout")
    assert shout is not None and shout.help == "workflow: Repeat a word in capitals"
    assert commands.get("broken-one") is None
