"""`/review` in the terminal UI: the code review of the working tree, the static part and,
with a provider configured, the model part (FakeLLM on loopback), cancellable with Esc."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lineapp import run_app

from aiagent.testing import FakeLLM, Turn


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_review_shows_findings_on_the_changed_lines(ui_env: dict[str, str], project: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _git(project, "init", "-q")
    (project / "run.py").write_text("def go(cmd):\n    return cmd\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "base")
    (project / "run.py").write_text(
        "import os\n\n\ndef go(cmd):\n    os.system(\"ls \" + cmd)\n    return cmd\n")
    with FakeLLM([Turn(text='{"findings": []}')]) as fake:
        code, out = run_app(["/review", "/quit"], _model_env(ui_env, fake), project, monkeypatch)
    assert code == 0
    assert "aiagent code review: the working tree" in out
    assert "OS command built from dynamic input" in out and "run.py:5" in out


def test_review_outside_a_repository_says_so(ui_env: dict[str, str], project: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_API_KEY": "sk-test-1234567890"}
    code, out = run_app(["/review", "/quit"], env, project, monkeypatch)
    assert code == 0 and "not a git repository" in out


def _model_env(ui_env: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    return {**ui_env, "AIAGENT_NO_HISTORY": "1", "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-1234567890"}


def _changed_repo(project: Path) -> None:
    _git(project, "init", "-q")
    (project / "calc.py").write_text("def total(items):\n    return sum(items)\n")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "base")
    (project / "calc.py").write_text(
        "def total(items):\n    result = 0\n    for item in items:\n"
        "        result += item.price\n    return result\n")


BUG = {"category": "bug", "severity": "high", "file": "calc.py", "start_line": 4,
       "end_line": 4, "title": "items are numbers: .price fails",
       "explanation": "total() is given numbers; item.price raises AttributeError.",
       "suggested_fix": "-        result += item.price\n+        result += item\n"}


def test_review_with_a_provider_runs_the_model_part(ui_env: dict[str, str], project: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _changed_repo(project)
    with FakeLLM([Turn(text=json.dumps({"findings": [BUG]}))]) as fake:
        code, out = run_app(["/review", "/quit"], _model_env(ui_env, fake), project, monkeypatch)
        sent = json.dumps(fake.requests[0]["json"]) if fake.requests else ""
    assert code == 0
    assert "result += item.price" in sent  # the model was given the diff
    assert "items are numbers: .price fails" in out and "calc.py:4" in out
    assert "no model: static part only" not in out


def test_review_model_failure_is_one_line_and_keeps_the_static_part(
        ui_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _changed_repo(project)
    with FakeLLM([Turn(text="not JSON at all")] * 5) as fake:
        code, out = run_app(["/review", "/quit"], _model_env(ui_env, fake), project, monkeypatch)
    assert code == 0
    assert "aiagent code review: the working tree" in out  # the report is still shown
    errors = [line for line in out.splitlines() if line.startswith("✗")]
    assert len(errors) == 1 and "Traceback" not in out


def test_review_without_a_provider_runs_the_static_part_only(
        ui_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _changed_repo(project)
    env = {**ui_env, "AIAGENT_NO_HISTORY": "1", "OLLAMA_HOST": "127.0.0.1:9"}
    code, out = run_app(["/review", "/quit"], env, project, monkeypatch)
    assert code == 0
    assert "aiagent code review: the working tree" in out and "no model" in out


class _EscWhenAsked:
    """The terminal's keys: Esc, once the fake model has received the review's request."""

    def __init__(self, fake: FakeLLM) -> None:
        self.fake = fake

    async def get(self) -> str:
        while not self.fake.requests:
            await asyncio.sleep(0.02)
        return "escape"


def test_esc_stops_a_review_while_the_model_is_answering(
        ui_env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aiagent.frontends.tui import running

    _changed_repo(project)
    with FakeLLM([Turn(text=json.dumps({"findings": [BUG]}), stall=8)]) as fake:
        @contextlib.contextmanager
        def keys(app: Any) -> Iterator[Any]:
            yield _EscWhenAsked(fake)

        monkeypatch.setattr(running, "key_reader", keys)
        code, out = run_app(["/review", "/quit"], _model_env(ui_env, fake), project, monkeypatch)
    assert code == 0
    assert "review stopped" in out
    assert "items are numbers" not in out  # the model's answer never arrived
