"""An MCP server's prompts are slash commands in the terminal UI: ``/mcp__srv__review the
parser`` fills the server's ``review`` prompt in and sends it as the user's message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import tomli_w
from lineapp import run_app

from aiagent.testing import FakeLLM, Turn

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp" / "server_app.py"


@pytest.fixture
def env(ui_env: dict[str, str]) -> dict[str, str]:
    config = Path(ui_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    servers = {"srv": {"command": sys.executable, "args": [str(SERVER)]}}
    (config / "config.toml").write_text(tomli_w.dumps({"mcp": {"servers": servers}}))
    return {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}


def test_a_prompt_is_sent_as_the_users_message(env: dict[str, str], project: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM([Turn(text="reviewed it")]) as fake:
        code, out = run_app(['/mcp__srv__review "the parser"', "/help", "/quit"],
                            {**env, "ANTHROPIC_BASE_URL": fake.url}, project, monkeypatch)
        sent = json.dumps([r["json"] for r in fake.requests])
    assert code == 0, out
    assert "MCP prompt review of srv" in out and "reviewed it" in out
    assert "Please review the parser." in sent
    assert "/mcp__srv__review" in out  # listed in /help once the server is up


def test_bad_arguments_and_unknown_prompts_say_why(env: dict[str, str], project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM([]) as fake:
        code, out = run_app(["/mcp__srv__review", "/mcp__srv__nothing",
                             "/mcp__srv__review topic=x extra", '/mcp__srv__review "open', "/quit"],
                            {**env, "ANTHROPIC_BASE_URL": fake.url}, project, monkeypatch, width=200)
        assert fake.requests == []  # nothing was sent
    assert code == 0
    assert "/mcp__srv__review: missing argument topic (usage: /mcp__srv__review topic)" in out
    assert "/mcp__srv__nothing: no such MCP prompt" in out and "offer: /mcp__srv__review" in out
    assert "takes no more arguments" in out
    assert "No closing quotation" in out


def test_a_server_that_does_not_start_is_one_line(ui_env: dict[str, str], project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    config = Path(ui_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    servers = {"gone": {"command": str(project / "no-such-server")}}
    (config / "config.toml").write_text(tomli_w.dumps({"mcp": {"servers": servers}}))
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    code, out = run_app(["/mcp__gone__x", "/quit"], env, project, monkeypatch, width=200)
    assert code == 0
    assert "/mcp__gone__x: no such MCP prompt" in out and "offer: none" in out
