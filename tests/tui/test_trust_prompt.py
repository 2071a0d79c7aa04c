"""The trust question at start-up in an untrusted folder (in-process, line mode)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lineapp import run_app
from skillproject import write_peek

from aiagent.infra.config.trust import TrustStore, store_file
from aiagent.testing import FakeLLM

QUESTION = "Trust this folder?"


@pytest.fixture
def env(ui_env: dict[str, str]) -> dict[str, str]:
    return {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}


def start(lines: list[str], env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    with FakeLLM([]) as fake:
        code, out = run_app(lines, {**env, "ANTHROPIC_BASE_URL": fake.url}, project, monkeypatch, width=100)
    assert code == 0, out
    return out


def test_no_keeps_the_skill_out_and_stores_nothing(env, project: Path, monkeypatch) -> None:  # noqa: ANN001
    write_peek(project)
    (project / ".agent" / "config.toml").write_text('[agent]\napproval_mode = "full-auto"\n')
    out = start(["n", "/skill peek", "/quit"], env, project, monkeypatch)
    assert QUESTION in out and "skills with code: peek (starlark)" in out
    assert "config that widens permissions: agent.approval_mode" in out
    assert "✗ not trusted" in out and "skill peek came with this folder, which is not trusted" in out
    assert "skill peek active" not in out
    assert TrustStore(store_file(env)).folders() == []


def test_once_trusts_this_session_only(env, project: Path, monkeypatch) -> None:  # noqa: ANN001
    write_peek(project)
    out = start(["o", "/skill peek", "a", "/quit"], env, project, monkeypatch)
    assert "✓ trusted for this session" in out and "✓ skill peek active" in out
    assert TrustStore(store_file(env)).folders() == []
    again = start(["n", "/quit"], env, project, monkeypatch)
    assert QUESTION in again  # asked again next time


def test_always_records_the_folder_and_is_not_asked_again(env, project: Path, monkeypatch) -> None:  # noqa: ANN001
    write_peek(project)
    out = start(["a", "/quit"], env, project, monkeypatch)
    assert "✓ trusted" in out
    assert TrustStore(store_file(env)).folders() == [project.resolve()]
    again = start(["/skill peek", "a", "/quit"], env, project, monkeypatch)
    assert QUESTION not in again and "✓ skill peek active" in again


def test_a_folder_with_nothing_to_hold_back_is_not_asked(env, project: Path, monkeypatch) -> None:  # noqa: ANN001
    (project / ".agent" / "skills" / "notes").mkdir(parents=True)
    (project / ".agent" / "skills" / "notes" / "SKILL.md").write_text(
        "---\nname: notes\ndescription: house rules\n---\nWrite tests first.\n")
    out = start(["/skills", "/quit"], env, project, monkeypatch)
    assert QUESTION not in out and "notes" in out  # instructions only: loaded untrusted
