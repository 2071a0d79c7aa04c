"""The adversarial suite: a hostile model, repository or skill, driven through the real
``aiagent`` command, and the real effect checked (a marker file, a write outside, a key).

``agent_run(calls, *args)`` scripts FakeLLM to make ``calls`` (each a ``(tool, arguments)``
pair) in one turn, then answer "done", runs ``aiagent --headless`` with ``args`` in the
project folder and returns the finished process with the requests the model received.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aiagent.testing import FakeLLM, ToolCall, Turn


@dataclass
class AgentRun:
    proc: subprocess.CompletedProcess[str]
    requests: list[dict[str, Any]]

    def tool_results(self) -> str:
        """Everything the model was sent after its tool calls (the results), as text."""
        import json

        return json.dumps(self.requests[1:]) if len(self.requests) > 1 else ""


AgentRunner = Callable[..., AgentRun]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("hello\n")
    return folder


@pytest.fixture
def agent_run(run_cli: Callable[..., subprocess.CompletedProcess[str]], project: Path) -> AgentRunner:
    def run(calls: Sequence[tuple[str, dict[str, Any]]], *args: str,
            env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 60) -> AgentRun:
        script = [Turn(text="", tool_calls=[ToolCall(name, dict(a)) for name, a in calls]),
                  Turn(text="done")]
        with FakeLLM(script) as fake:
            proc = run_cli("--headless", "--provider", "openai", "--model", "test-model",
                           "--prompt", "go", *args, cwd=cwd or project,
                           env={"OPENAI_BASE_URL": fake.url + "/v1", "OPENAI_API_KEY": "sk-test",
                                **(env or {})}, timeout=timeout)
            requests = [r.get("json", {}) for r in fake.requests]
        return AgentRun(proc, requests)

    return run
