"""The <shell> text protocol: parsing across chunk boundaries, and running a round."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aiagent.agent.tools.prompts import shell_bg_prompt
from aiagent.agent.tools.shell import shutdown
from aiagent.agent.tools.shell.tags import ShellTagParser, cap, extract_commands, run_shell_tags
from aiagent.contracts.tools import ToolContext

ANSWER = "Let me look.\n\n<shell>ls -a</shell> then <shell>\necho one\n</shell> done"


def test_extract_keeps_text_untouched() -> None:
    text = ANSWER
    assert extract_commands(text) == ["ls -a", "echo one"]
    assert text == ANSWER


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 100])
def test_parser_handles_any_split(size: int) -> None:
    parser = ShellTagParser()
    found = []
    for i in range(0, len(ANSWER), size):
        found += parser.feed(ANSWER[i : i + size])
    assert found == ["ls -a", "echo one"]
    assert not parser.open_block


def test_parser_reports_open_block() -> None:
    parser = ShellTagParser()
    assert parser.feed("x <she") == []
    assert parser.feed("ll>sleep") == []
    assert parser.open_block
    assert parser.feed(" 1</shel") == []
    assert parser.feed("l>") == ["sleep 1"]


def test_cap() -> None:
    assert cap("abc", 10) == "abc"
    assert len(cap("x" * 5000, 2000)) <= 2000


def test_run_round(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, settings={"shell": {"login": False}, "tags": {"max_result_chars": 80}})

    async def main():
        try:
            none = await run_shell_tags("no commands here", ctx)
            done = await run_shell_tags("<shell>echo hello</shell><shell>seq 1 1000</shell>", ctx)
            return none, done
        finally:
            await shutdown(ctx.state)

    none, done = asyncio.run(main())
    assert none is None
    assert done.commands == ["echo hello", "seq 1 1000"]
    assert done.message.startswith("$ echo hello\nExit code: 0\n")
    assert len(done.results[1]) <= 80


def test_shell_bg_prompt_is_engine_neutral() -> None:
    text = shell_bg_prompt()
    assert "background" in text and "Remember" in text
    for tool_name in ("shell_command", "exec_command", "run_shell_command", "job_kill"):
        assert tool_name not in text
