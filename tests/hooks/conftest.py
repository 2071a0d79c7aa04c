"""Helpers for the user-hook tests: a project folder, the user's config file, and a run of
the real ``aiagent --headless`` against FakeLLM on loopback (OpenAI wire format)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aiagent.testing import FakeLLM, ToolCall, Turn


@dataclass
class Ran:
    proc: subprocess.CompletedProcess[str]
    requests: list[dict[str, Any]]

    def sent(self, index: int) -> str:
        """The JSON of request ``index`` as text (what the model was sent)."""
        return json.dumps(self.requests[index]["json"])

    def tool_result(self) -> str:
        """The content of the last tool message of the last request."""
        messages = self.requests[-1]["json"]["messages"]
        return next(m["content"] for m in reversed(messages) if m["role"] == "tool")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / "notes.txt").write_text("hello world\n")
    (folder / "other.txt").write_text("SECRET-OTHER\n")
    return folder


@pytest.fixture
def user_config(clean_env: dict[str, str]) -> Callable[[str], Path]:
    """Write the user's config.toml."""

    def write(text: str) -> Path:
        path = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    return write


def read_script(project: Path) -> list[Turn]:
    return [Turn(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": str(project / "notes.txt")})]),
            Turn(text="All done.")]


@pytest.fixture
def run_agent(run_cli: Any, project: Path) -> Callable[..., Ran]:
    """``aiagent --headless -p PROMPT`` in the project, the model scripted (default: one
    read_file of notes.txt, then an answer)."""

    def run(*extra: str, script: list[Turn] | None = None, prompt: str = "Read notes.txt",
            timeout: float = 60) -> Ran:
        with FakeLLM(script if script is not None else read_script(project)) as fake:
            proc = run_cli("--headless", "--provider", "openai", *extra, "--prompt", prompt,
                           cwd=project, env={"OPENAI_BASE_URL": fake.url + "/v1"}, timeout=timeout)
            return Ran(proc, fake.requests)

    return run
