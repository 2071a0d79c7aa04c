"""FakeLLM for batches with a model: answers that fit the wiki passes, the code-review agent
and the LLM audit, and a measure of how many requests the server held at once."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from tests.batch.conftest import git, make_folder

from aiagent.testing import FakeLLM, Turn

USAGE = (1000, 100)  # per call; gpt-4o: 1000 x $2.5/M + 100 x $10/M = $0.0035
CALL_COST = 0.0035


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user")


def answer_for(prompt: str) -> dict[str, Any]:
    if "Summarise the module below" in prompt:
        found = re.search(r"Module: .*? \(id ([\w-]+)\)", prompt)
        mid = found.group(1) if found else "x"
        return {"purpose": f"The {mid} module (model).", "summary": f"Module {mid} adds numbers.",
                "key_points": ["It is small."]}
    if "describe the project as a whole" in prompt:
        return {"architecture": "One package.", "data_flow": "Numbers in, numbers out.",
                "key_abstractions": [], "design_patterns": [], "suggestions": []}
    return {"findings": []}  # the code-review agent and the audit's analyzers


class Meter:
    """A FakeLLM responder that holds each request ``hold`` seconds and records the most
    requests held at once (observed, not timed). With ``gather`` set, a request is held
    until that many are in flight (or ``gather`` were once, or ``patience`` seconds pass),
    so a limit the batch allows is reached even on a slow, loaded machine."""

    def __init__(self, hold: float = 0.4, gather: int = 0, patience: float = 30.0) -> None:
        self.hold, self.now, self.peak = hold, 0, 0
        self.gather, self.patience = gather, patience
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)

    def __call__(self, body: dict[str, Any]) -> Turn:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.peak >= self.gather, timeout=self.patience)
        try:
            time.sleep(self.hold)
        finally:
            with self.lock:
                self.now -= 1
        return Turn(text=json.dumps(answer_for(_prompt(body))), usage=USAGE)


def fake_env(fake: FakeLLM) -> dict[str, str]:
    return {"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test-123",
            "ANTHROPIC_API_KEY": "", "OLLAMA_HOST": "127.0.0.1:9"}


MODEL_ARGS = ("--llm", "--provider", "openai", "--model", "gpt-4o")


def review_repos(tmp: Path, count: int) -> Path:
    """``count`` local repositories, each with a commit to review; the repositories file."""
    lines = []
    for n in range(count):
        repo = make_folder(tmp / f"proj{n}", {"pkg/__init__.py": '"""A package."""\n',
                                              "pkg/core.py": f'def add{n}(a, b):\n    return a + b\n'})
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "first")
        (repo / "pkg" / "core.py").write_text(f"def add{n}(a, b):\n    return a - b\n")
        git(repo, "commit", "-qam", "second")
        lines.append(f"{repo} range=HEAD~1..HEAD")
    listed = tmp / "repos.txt"
    listed.write_text("\n".join(lines) + "\n")
    return listed
