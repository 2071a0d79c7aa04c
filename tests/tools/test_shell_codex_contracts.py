"""Golden tests for the results that must match Codex CLI byte for byte.

Expected strings come from Codex's own tests (``codex-rs/utils/string/src/truncate/tests.rs``,
``codex-rs/utils/output-truncation/src/truncate_tests.rs``, with the warning line that
openai/codex#28467 put above ``Total output lines``) or are derived from its rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shellkit import Shell, drive

from aiagent.agent.tools.base import ToolRegistry, validate_args
from aiagent.agent.tools.shell.env import TAG_VARIABLE, command_env
from aiagent.agent.tools.shell.truncate import (
    approx_token_count,
    formatted_truncate,
    truncate_middle,
)

WARN = "Warning: truncated output (original token count: {})\nTotal output lines: {}\n\n"


@pytest.mark.parametrize(
    ("text", "tokens", "expected"),
    [
        ("abcdef", 0, "…2 tokens truncated…"),
        ("short output", 100, "short output"),
        ("example output", 1, "ex…3 tokens truncated…ut"),
        ("this is an example of a long output that should be truncated", 5,
         "this is an…10 tokens truncated… truncated"),
        ("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 8, "😀😀😀😀…8 tokens truncated… line with text\n"),
        # multibyte text: the count is the bytes over budget, not the bytes cut (was 8)
        ("😀" * 10, 3, "😀…7 tokens truncated…😀"),
        ("é" * 11, 1, "é…5 tokens truncated…é"),
    ],
)
def test_truncate_middle_matches_codex(text: str, tokens: int, expected: str) -> None:
    assert truncate_middle(text, tokens) == expected


def test_formatted_truncate_matches_codex() -> None:
    two = "this is an example of a long output that should be truncated\nalso some other line"
    assert formatted_truncate(two, 10) == WARN.format(21, 2) + \
        "this is an example o…11 tokens truncated…also some other line"
    assert formatted_truncate("example output", 1) == WARN.format(4, 1) + "ex…3 tokens truncated…ut"
    assert formatted_truncate("example output", 10) == "example output"


def test_token_count_rounds_bytes_up() -> None:
    assert [approx_token_count(t) for t in ("", "a", "abcd", "abcde", "😀", "😀a")] == [0, 1, 1, 2, 1, 2]


def test_exec_command_truncated_output_has_codex_header(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        cmd = "python3 -c \"print('x' * 4000)\""
        args = {"cmd": cmd, "yield_time_ms": 5000, "max_output_tokens": 100}
        return (await s.call("exec_command", args)).content

    out = drive(Shell(tmp_path), body)
    tail = out.split("\n", 2)[2]
    assert tail == (
        "Process exited with code 0\nOriginal token count: 1001\nOutput:\n"
        + WARN.format(1001, 1) + "x" * 200 + "…901 tokens truncated…" + "x" * 199 + "\n"
    )


def test_exec_command_short_output_has_no_header(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        return (await s.call("exec_command", {"cmd": "printf 'é%.0s' 1 2 3", "yield_time_ms": 5000})).content

    out = drive(Shell(tmp_path), body)
    assert out.split("\n", 2)[2] == "Process exited with code 0\nOriginal token count: 2\nOutput:\néé\u00e9"


def test_shell_json_truncation_header(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        args = {"command": ["python3", "-c", "print('ab\\n' * 3000, end='')"]}
        return (await s.call("shell", args)).content

    output = json.loads(drive(Shell(tmp_path, max_output_tokens=10), body))["output"]
    body_ = "ab\n" * 6 + "ab…2240 tokens truncated…b\n" + "ab\n" * 6
    assert output.startswith(WARN.format(2250, 3000) + body_ + "\n[full output: ")


@pytest.mark.parametrize("tool", ["shell", "shell_command", "exec_command"])
def test_codex_approval_arguments_are_accepted(tool: str) -> None:
    spec = ToolRegistry().get(tool)
    assert spec is not None
    command: object = ["true"] if tool == "shell" else "true"
    key = "cmd" if tool == "exec_command" else "command"
    args = {key: command, "sandbox_permissions": "require_escalated",
            "justification": "Do you want to pull?", "prefix_rule": ["git", "pull"]}
    assert validate_args(spec, args) is None
    assert spec.input_schema["properties"]["prefix_rule"]["items"] == {"type": "string"}
    # still strict about everything else
    assert validate_args(spec, {**args, "prefix_rule": "git pull"}) is not None
    assert validate_args(spec, {**args, "bogus": 1}) is not None


def test_prefix_rule_runs_the_command_unchanged(tmp_path: Path) -> None:
    async def body(s: Shell) -> str:
        args = {"command": "echo ran", "prefix_rule": ["echo"], "justification": "x"}
        return (await s.call("shell_command", args)).content

    assert drive(Shell(tmp_path), body).endswith("Output:\nran\n")


def test_child_environment_matches_codex(tmp_path: Path) -> None:
    keys = ["NO_COLOR", "TERM", "LANG", "LC_CTYPE", "LC_ALL", "COLORTERM", "PAGER", "GIT_PAGER", "GH_PAGER"]
    script = "; ".join(f"echo {k}=${{{k}-unset}}" for k in keys)

    async def body(s: Shell) -> tuple[str, str]:
        pipes = (await s.call("exec_command", {"cmd": script, "yield_time_ms": 5000})).content
        tty = (await s.call("exec_command", {"cmd": script, "tty": True, "yield_time_ms": 5000})).content
        return pipes, tty

    base = {"LANG": "de_DE.ISO-8859-1", "LC_ALL": "POSIX", "TERM": "xterm", "COLORTERM": "truecolor"}
    import os

    saved = {k: os.environ.get(k) for k in base}
    os.environ.update(base)
    try:
        pipes, tty = drive(Shell(tmp_path), body)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    expected = ["NO_COLOR=1", "TERM=dumb", "LANG=C.UTF-8", "LC_CTYPE=C.UTF-8", "LC_ALL=C.UTF-8",
                "COLORTERM=", "PAGER=cat", "GIT_PAGER=cat", "GH_PAGER=cat"]
    assert pipes.split("Output:\n", 1)[1].splitlines() == expected
    assert tty.split("Output:\n", 1)[1].replace("\r", "").splitlines() == expected


def test_configured_env_still_wins() -> None:
    env = command_env("t", {"LC_ALL": "en_US.UTF-8"}, base={"PATH": "/bin"})
    assert env["LC_ALL"] == "en_US.UTF-8" and env["LC_CTYPE"] == "C.UTF-8" and env[TAG_VARIABLE] == "t"
