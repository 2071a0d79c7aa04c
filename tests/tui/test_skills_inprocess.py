"""Skills in the interactive UI, in-process in line mode against FakeLLM: /skills,
/skill NAME with its permission box, the skill's tool called by the model, workflow
commands, and the answer recorded by the runtime."""

from __future__ import annotations

from pathlib import Path

import pytest
from lineapp import run_app
from skillproject import write_all, write_peek

from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def env(ui_env: dict[str, str], project: Path) -> dict[str, str]:
    """The user's environment, with the project trusted (its skills have code)."""
    from aiagent.infra.config.trust import TrustStore, store_file

    TrustStore(store_file(ui_env)).add(project)
    return {**ui_env, "AIAGENT_NO_HISTORY": "1"}


def with_llm(env: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    return {**env, "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-test-1234567890"}


def test_skill_by_hand_asks_once_and_its_tool_runs(env: dict[str, str], project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    write_all(project)
    script = [Turn(tool_calls=[ToolCall("first_line", {"path": "notes.txt"})]),
              Turn(text="peeked")]
    lines = ["/skills", "/skill peek", "a", "/skill peek", "peek at the notes", "/skills",
             "/quit"]
    with FakeLLM(script) as fake:
        code, out = run_app(lines, with_llm(env, fake), project, monkeypatch, width=100)
        sent = fake.requests
    assert code == 0
    listing = out[: out.index('Skill "peek" wants to activate')]
    assert "peek" in listing and "available" in listing and "shout" in listing
    assert "broken-one" in listing and "broken" in listing and "not-a-version" in listing
    assert "Required permissions:" in out
    assert "✓ file:read — Read files within the project [low risk]" in out
    assert "[y] allow once" in out and "[a] allow always" in out and "[n] deny" in out
    assert "✓ allowed always" in out
    assert "✓ skill peek active · tools: first_line" in out
    assert "skill peek is already active" in out
    assert "first line: alpha bravo charlie" in out and "peeked" in out
    first = sent[0]["json"]
    assert "first_line" in [t["name"] for t in first["tools"]]
    system = str(first["system"])
    assert "- shout: Say a word loudly" in system and "- peek:" not in system  # active: not in the index
    assert out.count("wants to activate") == 1
    final = out[out.index("peeked"):].splitlines()
    assert any(line.split()[:2] == ["peek", "active"] for line in final), final


def test_always_is_recorded_and_deny_is_not(env: dict[str, str], project: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    write_peek(project)
    with FakeLLM([]) as fake:
        code, out = run_app(["/skill peek", "n", "/skill peek", "a", "/quit"],
                            with_llm(env, fake), project, monkeypatch, width=100)
    assert code == 0
    assert "✗ denied" in out and "needs permission file:read, which was not granted" in out
    assert "✓ skill peek active" in out
    with FakeLLM([]) as fake:  # a new session: the grant was stored
        code, out = run_app(["/skill peek", "/quit"], with_llm(env, fake), project,
                            monkeypatch, width=100)
    assert code == 0
    assert "wants to activate" not in out and "✓ skill peek active" in out
    from aiagent.agent.skills.permissions import SqliteGrantStore

    grants = SqliteGrantStore(env).grants("peek")
    assert [(g.permission, g.scope) for g in grants] == [("file:read", "always")]


def test_workflow_skill_is_a_slash_command(env: dict[str, str], project: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    write_all(project)
    with FakeLLM([Turn(text="heard it")]) as fake:
        code, out = run_app(["/help", "/shout 3", "/shout many", "/shout {\"times\": 2}",
                             "what did it say?", "/quit"], with_llm(env, fake), project,
                            monkeypatch, width=100)
        last = fake.requests[-1]["json"]["messages"][-1]["content"]
    assert code == 0
    assert "/shout" in out and "workflow: Repeat a word in capitals" in out  # /help
    assert "✓ skill shout active" in out  # no permissions: no box
    assert "HEY HEY HEY!" in out and "HEY HEY!" in out
    assert "times must be an integer, not 'many'" in out
    text = last if isinstance(last, str) else last[0]["text"]
    assert '<workflow-result name="shout">' in text and "HEY HEY HEY!" in text


def test_model_activation_uses_the_same_box(env: dict[str, str], project: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    write_peek(project)
    script = [Turn(tool_calls=[ToolCall("activate_skill", {"name": "peek"})]),
              Turn(tool_calls=[ToolCall("first_line", {"path": "notes.txt"})]),
              Turn(text="done via the model")]
    with FakeLLM(script) as fake:
        code, out = run_app(["use the peek skill", "y", "/quit"], with_llm(env, fake),
                            project, monkeypatch, width=100)
        first = fake.requests[0]["json"]
    assert code == 0
    assert "activate_skill" in [t["name"] for t in first["tools"]]
    assert 'Skill "peek" wants to activate' in out and "✓ allowed once" in out
    assert "first line: alpha bravo charlie" in out and "done via the model" in out


def write_triggered_peek(project: Path) -> None:
    from skillproject import PEEK_STAR, PEEK_YAML, write_skill

    write_peek(project)
    write_skill(project, "peek", PEEK_YAML + "triggers:\n  keywords: [\"peek\"]\n", PEEK_STAR)


def test_keyword_trigger_asks_inside_the_turn(env: dict[str, str], project: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    write_triggered_peek(project)
    script = [Turn(tool_calls=[ToolCall("first_line", {"path": "notes.txt"})]),
              Turn(text="triggered and peeked")]
    with FakeLLM(script) as fake:
        code, out = run_app(["please peek at the notes", "y", "/quit"], with_llm(env, fake),
                            project, monkeypatch, width=100)
        first = fake.requests[0]["json"]
    assert code == 0
    assert 'Skill "peek" wants to activate' in out and "✓ allowed once" in out
    assert "first_line" in [t["name"] for t in first["tools"]]
    assert "first line: alpha bravo charlie" in out and "triggered and peeked" in out


def test_denied_trigger_is_reported_and_the_turn_goes_on(
    env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_triggered_peek(project)
    with FakeLLM([Turn(text="answered without it")]) as fake:
        code, out = run_app(["peek please", "n", "/quit"], with_llm(env, fake), project,
                            monkeypatch, width=100)
        first = fake.requests[0]["json"]
    assert code == 0
    assert "! skills: skill peek needs permission file:read" in out
    assert "first_line" not in [t["name"] for t in first["tools"]]
    assert "answered without it" in out


def test_triggered_workflow_skill_is_offered_to_the_model(
    env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillproject import SHOUT_STAR, SHOUT_YAML, write_skill

    write_skill(project, "shout", SHOUT_YAML + "triggers:\n  keywords: [\"shout\"]\n", SHOUT_STAR)
    script = [Turn(tool_calls=[ToolCall("run_workflow", {"name": "shout", "input": {"times": 2}})]),
              Turn(text="it shouted")]
    with FakeLLM(script) as fake:
        code, out = run_app(["please shout", "y", "/quit"], with_llm(env, fake), project,
                            monkeypatch, width=100)
        first = fake.requests[0]["json"]
    assert code == 0
    assert "run_workflow" in [t["name"] for t in first["tools"]]
    assert "HEY HEY!" in out and "it shouted" in out
