"""Run budgets (`--max-cost`, `--max-tokens`, `[agent] max_cost` / `max_tokens`) through the
real command against FakeLLM on loopback: the run stops before the request that would pass
the limit, exits 4, says why in every output format, and keeps its session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stream_json_check import MODEL, anthropic_env, lines_of

from aiagent.testing import FakeLLM, ToolCall, Turn

# claude-sonnet-4: $3 in / $15 out per million tokens
FIRST_COST = 5000 * 3e-6 + 100 * 15e-6


def script(project: Path) -> list[Turn]:
    """A first response that reports 5000 + 100 tokens and calls a tool; the second
    request (about 4000 tokens of prompt and tools) would pass a 6000-token budget."""
    return [Turn(text="Reading.", usage=(5000, 100),
                 tool_calls=[ToolCall("read_file", {"file_path": str(project / "notes.txt")},
                                      id="r1")]),
            Turn(text="never asked")]


def run(run_cli, project: Path, *args: str) -> tuple[object, int, str]:
    with FakeLLM(script(project)) as fake:
        proc = run_cli("--headless", "-p", "read notes", "--model", MODEL, *args,
                       cwd=project, env=anthropic_env(fake))
        return proc, len(fake.requests), json.dumps(fake.requests[0]["json"])


def test_token_budget_stops_before_the_request_json(run_cli, project: Path) -> None:
    proc, asked, _ = run(run_cli, project, "--max-tokens", "6000", "-o", "json")
    assert proc.returncode == 4, proc.stderr
    assert asked == 1  # the second request was never sent
    data = json.loads(proc.stdout)
    assert (data["stop_reason"], data["exit_code"]) == ("max_budget", 4)
    assert data["stop_message"].startswith("token budget reached: 5100 tokens used")
    assert "--max-tokens" in data["stop_message"]
    assert data["usage"]["input_tokens"] == 5000 and data["cost_usd"] == pytest.approx(FIRST_COST)
    assert data["tool_calls"][0]["result"] == "L1: hello world"  # the tool still ran
    assert proc.stderr.splitlines()[-1] == f"aiagent: stopped: {data['stop_message']}"


def test_budget_in_text_markdown_and_stream_json(run_cli, project: Path) -> None:
    proc, _, _ = run(run_cli, project, "--max-tokens", "6000")
    assert proc.returncode == 4 and proc.stdout == "Reading.\n"  # the last text, as at a turn limit
    tail = proc.stderr.splitlines()[-2:]
    assert tail[0].startswith("aiagent: stopped: token budget reached")
    assert tail[1] == f"aiagent: tokens in/out 5000/100 · cost ${FIRST_COST:.4f}"

    proc, _, _ = run(run_cli, project, "--max-tokens", "6000", "-o", "markdown")
    assert proc.returncode == 4
    assert "Stop reason: max_budget" in proc.stdout and f"cost: ${FIRST_COST:.4f}" in proc.stdout
    assert "Stopped: token budget reached" in proc.stdout
    assert "aiagent: stopped: token budget reached" in proc.stderr

    proc, _, _ = run(run_cli, project, "--max-tokens", "6000", "-o", "stream-json")
    assert proc.returncode == 4
    result = lines_of(proc.stdout)[-1]
    assert (result["subtype"], result["is_error"], result["stop_reason"]) == \
        ("error_max_budget_usd", True, "max_budget")
    assert result["errors"][-1].startswith("token budget reached")
    assert result["total_cost_usd"] == pytest.approx(FIRST_COST)


def test_cost_budget(run_cli, project: Path) -> None:
    # after the first response $0.0165 is spent; the next ~4000-token prompt costs ~$0.012
    proc, asked, _ = run(run_cli, project, "--max-cost", "0.02", "-o", "json")
    assert proc.returncode == 4 and asked == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["stop_message"].startswith("cost budget reached: $0.0165 spent")
    proc, asked, _ = run(run_cli, project, "--max-cost", "1", "-o", "json")
    assert proc.returncode == 0 and asked == 2, proc.stderr  # a roomy budget changes nothing


def test_budget_hit_keeps_the_session(run_cli, project: Path) -> None:
    proc, _, _ = run(run_cli, project, "--max-tokens", "6000")
    assert proc.returncode == 4
    with FakeLLM([Turn(text="Carrying on.")]) as fake:
        again = run_cli("--headless", "--continue", "-p", "go on", "--model", MODEL,
                        cwd=project, env=anthropic_env(fake))
        history = json.dumps(fake.requests[0]["json"]["messages"])
    assert again.returncode == 0, again.stderr
    assert "read notes" in history and "Reading." in history and "L1: hello world" in history


def test_settings_give_the_budget(run_cli, project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".config" / "aiagent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text("[agent]\nmax_tokens = 6000\n")
    proc, asked, _ = run(run_cli, project, "-o", "json")
    assert proc.returncode == 4 and asked == 1
    proc, asked, _ = run(run_cli, project, "-o", "json", "--max-tokens", "0")  # 0: no limit
    assert proc.returncode == 0 and asked == 2, proc.stderr
    (folder / "config.toml").write_text("[agent]\nmax_cost = -1\n")
    proc = run_cli("--headless", "-p", "x", cwd=project)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "max_cost" in proc.stderr


@pytest.mark.parametrize(("flag", "value"), [
    ("--max-cost", "-1"), ("--max-cost", "abc"), ("--max-cost", "nan"), ("--max-cost", "inf"),
    ("--max-tokens", "-5"), ("--max-tokens", "1.5"), ("--max-tokens", "lots"),
])
def test_bad_values_are_usage_errors(run_cli, project: Path, flag: str, value: str) -> None:
    proc = run_cli("--headless", "-p", "x", flag, value, cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"aiagent: error: {flag} '{value}': expected ")
    assert len(proc.stderr.splitlines()) == 1


def test_a_cost_limit_needs_a_known_price(run_cli, project: Path) -> None:
    with FakeLLM([Turn(text="x")]) as fake:
        proc = run_cli("--headless", "-p", "x", "--model", "mystery-model", "--max-cost", "1",
                       cwd=project, env=anthropic_env(fake))
        asked = len(fake.requests)
    assert proc.returncode == 2 and asked == 0
    assert proc.stderr.splitlines() == [
        "aiagent: error: --max-cost / [agent] max_cost: no price is known for model "
        "'mystery-model', so the cost cannot be kept; use --max-tokens"]
