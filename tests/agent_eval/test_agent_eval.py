"""bench/agent_eval/run.py: the harness that scores aiagent on coding exercises, driving the
real ``aiagent --headless`` against FakeLLM on loopback.

A model that replays the known-good solutions must score 100 %; one that answers nothing 0 %;
one that only passes on its second attempt must see the failing tests' output; a model that
rewrites the tests does not pass (they are restored before the check); a re-run resumes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.agent_eval.evalkit import result_rows

from aiagent.infra import sandbox
from aiagent.testing import FakeLLM, ToolCall, Turn

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "agent_eval" / "run.py"
EXERCISES = Path(__file__).resolve().parent / "exercises"
PRACTICE = EXERCISES / "python" / "exercises" / "practice"
Responder = Callable[[dict[str, Any]], Turn]


def _user_text(body: dict[str, Any]) -> str:
    texts = []
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            texts.append(content if isinstance(content, str) else json.dumps(content))
    return texts[-1] if texts else ""


def _answered_tool(body: dict[str, Any]) -> bool:
    return body.get("messages", [{}])[-1].get("role") == "tool"


def _solution_call(prompt: str) -> ToolCall:
    """The known-good solution of the exercise the prompt is about, as a tool call."""
    for exercise in PRACTICE.iterdir():
        config = json.loads((exercise / ".meta" / "config.json").read_text())
        target = config["files"]["solution"][0]
        if f"Change {target} " in prompt:
            return ToolCall("write_file", {"file_path": target,
                                           "content": (exercise / ".meta" / "example.py").read_text()})
    script = (EXERCISES / "tasks" / "count-lines" / "solution.sh").read_text()
    return ToolCall("shell_command", {"command": script.split("\n", 1)[1].strip()})


def oracle(body: dict[str, Any]) -> Turn:
    if _answered_tool(body):
        return Turn(text="Done.")
    return Turn(text="Writing the solution.", tool_calls=[_solution_call(_user_text(body))])


def run_harness(env: dict[str, str], out: Path, *args: str, tasks: Path = EXERCISES,
                timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--tasks", str(tasks), "--out", str(out),
                           "--provider", "openai", "--model", "fake", "--max-turns", "4", "--timeout", "60",
                           *args], env=env, capture_output=True, text=True, timeout=timeout)


def test_known_good_solutions_score_100_percent(fake_env, tmp_path: Path) -> None:
    with FakeLLM(responder=oracle) as fake:
        proc = run_harness(fake_env(fake), tmp_path / "out")
        requests = fake.requests
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "pass rate: 4/4", proc.stdout + proc.stderr
    rows = result_rows(tmp_path / "out")
    assert set(rows) == {"python/leap", "python/run-length", "python/two-fer", "tasks/count-lines"}
    assert all(r["passed"] == 1 and r["attempts"] == 1 and r["turns"] == 2 for r in rows.values())
    assert all(r["input_tokens"] > 0 for r in rows.values())
    # the checks ran in the sandbox (test_check_sandbox.py proves what that holds back)
    assert {r["checks"] for r in rows.values()} == {f"sandboxed: {sandbox.detect('auto').backend}"}
    assert proc.stdout.strip().splitlines()[-2].startswith("checks: sandboxed: ")
    assert "| python | 3/3 | 100.0 |" in proc.stdout and "| tasks | 1/1 | 100.0 |" in proc.stdout
    # the agent never saw the known-good solution, nor the hidden check of a terminal task
    sent = json.dumps([r["json"] for r in requests])
    assert "example.py" not in sent and "solution.sh" not in sent and "run-tests.sh" not in sent
    assert not (tmp_path / "out" / "work" / "python" / "leap" / ".meta").exists()


def test_a_model_that_answers_nothing_scores_zero(fake_env, tmp_path: Path) -> None:
    with FakeLLM(responder=lambda body: Turn(text="")) as fake:
        proc = run_harness(fake_env(fake), tmp_path / "out")
        asked = len(fake.requests)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "pass rate: 0/4"
    rows = result_rows(tmp_path / "out")
    assert all(r["passed"] == 0 and r["attempts"] == 2 for r in rows.values())
    assert asked == 8  # two attempts per task


def test_second_attempt_sees_the_failing_tests(fake_env, tmp_path: Path) -> None:
    prompts: list[str] = []

    def second_time_right(body: dict[str, Any]) -> Turn:
        if _answered_tool(body):
            return Turn(text="Done.")
        prompt = _user_text(body)
        prompts.append(prompt)
        if prompt.startswith("The tests failed"):
            return Turn(tool_calls=[ToolCall("write_file", {"file_path": "leap.py", "content":
                                                            (PRACTICE / "leap" / ".meta" / "example.py").read_text()})])
        return Turn(tool_calls=[ToolCall("write_file", {"file_path": "leap.py",
                                                        "content": "def is_leap(year):\n    return year % 4 == 0\n"})])

    tasks = tmp_path / "tasks" / "python" / "exercises" / "practice"
    shutil.copytree(PRACTICE / "leap", tasks / "leap")
    with FakeLLM(responder=second_time_right) as fake:
        proc = run_harness(fake_env(fake), tmp_path / "out", tasks=tmp_path / "tasks")
        sent = fake.requests
    assert proc.stdout.strip().splitlines()[-1] == "pass rate: 1/1", proc.stdout + proc.stderr
    row = result_rows(tmp_path / "out")["python/leap"]
    assert row["attempts"] == 2 and row["passed"] == 1
    assert "assert not is_leap(1900)" in prompts[1]  # pytest's report of the failing assertion
    # the second attempt continues the first one's session: the first prompt is in its history
    assert "Leap" in json.dumps(sent[-2]["json"]["messages"][:2])
    assert "| python | 1/1 | 100.0 | 0.0 |" in proc.stdout


def test_rewriting_the_tests_does_not_pass(fake_env, tmp_path: Path) -> None:
    def cheat(body: dict[str, Any]) -> Turn:
        if _answered_tool(body):
            return Turn(text="Done.")
        return Turn(tool_calls=[ToolCall("write_file", {"file_path": "two_fer_test.py",
                                                        "content": "def test_ok():\n    assert True\n"})])

    tasks = tmp_path / "tasks" / "python" / "exercises" / "practice"
    shutil.copytree(PRACTICE / "two-fer", tasks / "two-fer")
    with FakeLLM(responder=cheat) as fake:
        proc = run_harness(fake_env(fake), tmp_path / "out", tasks=tmp_path / "tasks")
    assert proc.stdout.strip().splitlines()[-1] == "pass rate: 0/1", proc.stdout + proc.stderr
    work = tmp_path / "out" / "work" / "python" / "two-fer"
    assert (work / "two_fer_test.py").read_text() == (PRACTICE / "two-fer" / "two_fer_test.py").read_text()


def test_a_rerun_resumes_and_force_runs_again(fake_env, tmp_path: Path) -> None:
    with FakeLLM(responder=oracle) as fake:
        first = run_harness(fake_env(fake), tmp_path / "out", "--languages", "python", "--limit", "1")
        second = run_harness(fake_env(fake), tmp_path / "out", "--languages", "python", "--limit", "1")
        asked = len(fake.requests)
        forced = run_harness(fake_env(fake), tmp_path / "out", "--languages", "python", "--limit", "1", "--force")
        asked_forced = len(fake.requests)
    assert first.stdout.strip().splitlines()[-1] == "pass rate: 1/1", first.stderr
    assert "1 of 1 tasks already scored; running 0" in second.stderr
    assert second.stdout.strip().splitlines()[-1] == "pass rate: 1/1"
    assert asked == 2 and asked_forced == 4
    assert forced.returncode == 0


def test_published_figures_are_printed_beside_ours(fake_env, tmp_path: Path) -> None:
    published = tmp_path / "published.json"
    published.write_text(json.dumps({"model X (published)": {"python": 57.3}}))
    with FakeLLM(responder=oracle) as fake:
        proc = run_harness(fake_env(fake), tmp_path / "out", "--languages", "python", "--limit", "1",
                           "--published", str(published))
    header = proc.stdout.splitlines()[0]
    assert "model X (published)" in header
    assert "| python | 1/1 | 100.0 | 100.0 |" in proc.stdout and "| 57.3 |" in proc.stdout


@pytest.mark.parametrize(("setup", "message"), [
    (lambda d: None, "not a folder"),
    (lambda d: d.mkdir(), "no tasks found"),
    (lambda d: (d / "python" / "exercises" / "practice" / "x" / ".meta").mkdir(parents=True)
     or (d / "python" / "exercises" / "practice" / "x" / ".meta" / "config.json").write_text("{"),
     "unreadable files list"),
])
def test_bad_task_folders_get_one_line(tmp_path: Path, setup: Any, message: str) -> None:
    tasks = tmp_path / "tasks"
    setup(tasks)
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tasks", str(tasks), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
