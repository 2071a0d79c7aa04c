"""During a review the model may read more of the repository through the read-only tools
(a file outside the diff, with its real content), and nothing else: a write or a command
is refused, and the review still completes. The real ``aiagent`` command, FakeLLM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from review_helpers import git

from aiagent.testing import FakeLLM, ToolCall, Turn

MARKER = "PRICE_TABLE_MARKER_7731"


def _env(fake: FakeLLM) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-ant-test-123456"}


def _finding(**over: Any) -> dict[str, Any]:
    item = {"category": "bug", "severity": "high", "file": "app.py", "start_line": 13,
            "end_line": 13, "title": "prices are cents in pricing.py",
            "explanation": "pricing.py keeps cents; total() adds them as units.",
            "suggested_fix": "-        result += item.price\n+        result += item.price / 100\n"}
    item.update(over)
    return item


def _tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results in the last message of an Anthropic request."""
    last = request["json"]["messages"][-1]
    return [block for block in last["content"] if block.get("type") == "tool_result"]


def _text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


def _review(run_cli, repo: Path, fake: FakeLLM):
    return run_cli("--headless", "--mode", "code-review", "--diff", "main..feature", "-o", "json",
                   cwd=repo, env=_env(fake))


def _add_outside_file(repo: Path) -> Path:
    """pricing.py: committed on main, untouched by the feature branch (not in the diff)."""
    git(repo, "checkout", "-q", "main")
    (repo / "pricing.py").write_text(f"# {MARKER}\nCENTS = {{'apple': 120}}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pricing")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "main")
    return repo / "pricing.py"


def test_the_model_reads_a_file_outside_the_diff_then_answers(run_cli, repo: Path) -> None:
    outside = _add_outside_file(repo)
    script = [Turn(tool_calls=[ToolCall("read_file", {"file_path": str(outside)})]),
              Turn(text=json.dumps({"findings": [_finding()]}))]
    with FakeLLM(script) as fake:
        proc = _review(run_cli, repo, fake)
        requests = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert "pricing.py" not in json.dumps(requests[0]["json"]["messages"])  # not in the diff
    results = _tool_results(requests[1])
    assert len(results) == 1 and not results[0].get("is_error")
    assert MARKER in _text(results[0]) and "'apple': 120" in _text(results[0])
    data = json.loads(proc.stdout)
    assert data["model_used"] is True
    assert any(f["title"] == "prices are cents in pricing.py" for f in data["findings"])


def test_writes_and_commands_are_refused_and_the_review_completes(run_cli, repo: Path) -> None:
    evil, pwned = repo / "evil.txt", repo / "pwned"
    script = [Turn(tool_calls=[
                  ToolCall("write_file", {"file_path": str(evil), "content": "owned"}),
                  ToolCall("shell", {"command": ["sh", "-c", f"touch {pwned}"]})]),
              Turn(text=json.dumps({"findings": [_finding(title="still reviewed")]}))]
    with FakeLLM(script) as fake:
        proc = _review(run_cli, repo, fake)
        requests = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert not evil.exists() and not pwned.exists()
    results = _tool_results(requests[1])
    assert len(results) == 2 and all(r.get("is_error") for r in results), results
    assert git(repo, "status", "--porcelain") == ""  # nothing changed in the checkout
    data = json.loads(proc.stdout)
    assert any(f["title"] == "still reviewed" for f in data["findings"])
