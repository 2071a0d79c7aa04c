"""Warnings logged during a turn (here: a user hook that fails) are notice lines in the
conversation, once per turn, not stderr text across the spinner; the logging handlers are
as they were once the UI has gone."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import pytest
from lineapp import run_app
from test_tmux_e2e import ask, start
from tmuxdriver import Tmux

from aiagent.frontends.tui.lognotices import LogNotices, notice_text
from aiagent.testing import FakeLLM, ToolCall, Turn

HOOK = '[[hooks.PreToolUse]]\ncommand = "echo hook-said-$((6*7)) >&2; exit 1"\n'
WORD = "hook-said-42"  # what it prints (not its command line); never split by wrapping
FAILED = f"exited with code 1: {WORD}"


def _hooked(env: dict[str, str], project: Path) -> None:
    config = Path(env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(HOOK)
    (project / "a.txt").write_text("hi\n")


def _reads(count: int, answer: str) -> list[Turn]:
    """One user turn: ``count`` read_file calls (the hook fails at each), then ``answer``."""
    calls = [ToolCall("read_file", {"file_path": "a.txt"}) for _ in range(count)]
    return [Turn(tool_calls=calls[:2]), *[Turn(tool_calls=[c]) for c in calls[2:]],
            Turn(text=answer, text_chunks=20, chunk_delay=0.02)]


def _handlers() -> dict[str, list[logging.Handler]]:
    return {name: list(logging.getLogger(name).handlers) for name in ("", "aiagent")}


def test_a_failing_hook_is_one_notice_in_the_terminal(tmux: Tmux, ui_env: dict[str, str],
                                                      project: Path) -> None:
    _hooked(ui_env, project)
    with FakeLLM([*_reads(3, "First answer."), *_reads(1, "Second answer.")]) as fake:
        start(tmux, fake, ui_env, project, width=220)
        ask(tmux, "read it")
        tmux.wait_for("First answer.")
        tmux.wait_idle()
        first = tmux.everything()
        ask(tmux, "again")
        tmux.wait_for("Second answer.")
        tmux.wait_idle()
        both = tmux.everything()
    # three failures in the turn, one notice (it may wrap: the hook's path is long)
    notices = [ln for ln in first.splitlines() if ln.startswith("! hooks: PreToolUse hook ")]
    assert len(notices) == 1 and first.count(WORD) == 1, first
    assert "[[hooks.PreToolUse]] #1" in first
    assert "aiagent: hooks:" not in both, both  # no raw logging line
    assert "esc to interrupt" not in both, both  # the spinner was cleared, not written over
    assert both.count(WORD) == 2  # the next turn says it again, once


def test_line_mode_notice_once_and_handlers_restored(
        ui_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _hooked(ui_env, project)
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    before = _handlers()
    with FakeLLM(_reads(3, "done reading")) as fake:
        code, out = run_app(["read it", "/quit"], {**env, "ANTHROPIC_BASE_URL": fake.url},
                            project, monkeypatch)
    assert code == 0 and "done reading" in out
    assert out.count(WORD) == 1, out
    assert "! hooks: PreToolUse hook" in out and "aiagent: hooks:" not in out
    assert "aiagent: hooks:" not in capsys.readouterr().err
    assert _handlers() == before


def test_debug_keeps_its_stderr_record(ui_env: dict[str, str], project: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``--debug``'s handler on the ``aiagent`` logger still writes the record to stderr."""
    from aiagent.frontends.cli.errors import show_debug_log

    _hooked(ui_env, project)
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    logger = logging.getLogger("aiagent")
    level, kept = logger.level, list(logger.handlers)
    show_debug_log()
    try:
        with FakeLLM(_reads(1, "done reading")) as fake:
            code, out = run_app(["read it", "/quit"], {**env, "ANTHROPIC_BASE_URL": fake.url},
                                project, monkeypatch)
    finally:
        logger.handlers[:] = kept
        logger.setLevel(level)
    err = capsys.readouterr().err
    assert code == 0 and out.count(WORD) == 1
    assert "aiagent: hooks: PreToolUse hook" in err and FAILED in err
    assert "hook fires: PreToolUse (read_file)" in err  # the debug records too


def _record(name: str, message: str, level: int = logging.WARNING,
            exc: BaseException | None = None) -> logging.LogRecord:
    info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord(name, level, __file__, 1, message, None, info)


def test_notice_text() -> None:
    assert notice_text(_record("aiagent.agent.hooks", "aiagent: hooks: x failed")) == "hooks: x failed"
    assert notice_text(_record("asyncio", "Task died", logging.ERROR, ValueError("bad"))) == \
        "error: asyncio: Task died: ValueError: bad"


def test_records_from_other_threads_reach_the_loop() -> None:
    shown: list[str] = []

    class View:
        def print(self, renderable: object) -> None:
            shown.append(str(renderable))

    def warn_twice() -> None:
        log.warning("aiagent: from a thread")
        log.warning("aiagent: from a thread")

    async def turn() -> None:
        notices = LogNotices(screen=None)  # type: ignore[arg-type]  # never used: a view is
        with notices.installed(), notices.during(View()):
            thread = threading.Thread(target=warn_twice)
            thread.start()
            thread.join()
            log.warning("aiagent: from the loop")
            log.info("aiagent: not shown")
            for _ in range(3):
                await asyncio.sleep(0)

    log = logging.getLogger("aiagent.test.lognotices")
    asyncio.run(turn())
    assert shown == ["! from a thread", "! from the loop"]
