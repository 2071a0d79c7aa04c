"""Every front-end starts its agent in ``aiagent.app``: the headless command and the TUI,
given the same settings, send the model the same first request, byte for byte; the TUI's
``/provider`` and ``/compact`` go through the agent's own operations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lineapp import run_app

from aiagent.testing import FakeLLM, Turn

PROMPT = "hello there, what is in this folder?"


@pytest.fixture
def env(clean_env: dict[str, str], project: Path) -> dict[str, str]:
    (project / "AGENT.md").write_text("Always answer in haiku.\n")
    (project / "notes.txt").write_text("notes\n")
    return {**clean_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}


def _first_body(fake: FakeLLM) -> bytes:
    bodies = [r["body"] for r in fake.requests if r["json"] is not None]
    assert bodies, "no request reached the model"
    return bytes(bodies[0])


def test_headless_and_tui_send_byte_identical_first_requests(
        run_cli, env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM([Turn(text="one")]) as fake:
        proc = run_cli("--headless", "-p", PROMPT, cwd=project,
                       env={**env, "ANTHROPIC_BASE_URL": fake.url})
        headless = _first_body(fake)
    assert proc.returncode == 0, proc.stderr
    with FakeLLM([Turn(text="two")]) as fake:
        code, out = run_app([PROMPT, "/quit"], {**env, "ANTHROPIC_BASE_URL": fake.url},
                            project, monkeypatch)
        tui = _first_body(fake)
    assert code == 0 and "two" in out
    sent = json.loads(headless)
    # the bodies carry real content, so their equality says something
    assert "Always answer in haiku." in json.dumps(sent["system"])
    assert sent["messages"][-1]["content"][0]["text"] == PROMPT
    assert {t["name"] for t in sent["tools"]} >= {"read_file", "shell_command"}
    assert tui == headless


def test_a_different_setting_changes_the_request(
        run_cli, env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the test above: the comparison is able to see a difference."""
    with FakeLLM([Turn(text="one")]) as fake:
        run_cli("--headless", "-p", PROMPT, cwd=project, env={**env, "ANTHROPIC_BASE_URL": fake.url})
        headless = _first_body(fake)
    user_config = Path(env["XDG_CONFIG_HOME"]) / "aiagent"
    user_config.mkdir(parents=True)
    (user_config / "config.toml").write_text("[agent]\ntool_profile = \"readonly\"\n")
    with FakeLLM([Turn(text="two")]) as fake:
        run_app([PROMPT, "/quit"], {**env, "ANTHROPIC_BASE_URL": fake.url}, project, monkeypatch)
        tui = _first_body(fake)
    assert tui != headless
    assert "shell_command" not in {t["name"] for t in json.loads(tui)["tools"]}


def test_provider_switch_and_compact_use_the_agents_operations(
        env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/provider openai`` talks to the new provider from the next turn; ``/compact``
    summarises through it with the request the agent builds."""
    script = [Turn(text="first answer " * 40), Turn(text="second answer " * 40),
              Turn(text="SUMMARY: two answers"), Turn(text="after compaction")]
    with FakeLLM(script) as fake:
        lines = ["one", "/provider openai", "two", "/compact", "three", "/quit"]
        code, out = run_app(lines, {**env, "ANTHROPIC_BASE_URL": fake.url,
                                    "OPENAI_BASE_URL": fake.openai_url,
                                    "OPENAI_API_KEY": "sk-test-openai-123456"},
                            project, monkeypatch)
        paths = [r["path"] for r in fake.requests if r["json"] is not None]
        last = fake.requests[-1]["json"]
    assert code == 0, out
    assert "provider set to openai" in out
    assert paths[0].endswith("/v1/messages")
    assert all("chat/completions" in p or "responses" in p for p in paths[1:]), paths
    assert "compacted: about" in out, out
    assert "SUMMARY: two answers" in json.dumps(last["messages"])
