"""One task, start to end: a fresh copy, up to two attempts of the agent, the check after each.

The agent is the real ``aiagent --headless`` command (``-o json``), full-auto in the copy (shell
commands sandboxed), its sessions kept in the run's own data folder so the second attempt
continues the first one's session and sees the failing check's output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkrun import CheckMode, run_check
from tasks import Task

OUTPUT_TAIL = 4000  # characters of a failing check's output shown to the second attempt


@dataclass(frozen=True)
class Limits:
    turns: int = 30
    seconds: float = 600.0
    attempts: int = 2
    check_seconds: float = 600.0


@dataclass
class Outcome:
    key: str
    language: str
    passed: bool = False
    attempts: int = 0
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    status: str = "failed"  # passed | failed | not run (a reason) | error (a reason)
    exits: list[int] = field(default_factory=list)
    checks: str = ""  # how the check ran: "sandboxed: BACKEND" or unsandboxed

    def as_row(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def first_prompt(task: Task) -> str:
    files = ", ".join(task.editable)
    where = f"Change {files} to solve it. " if files else ""
    return (f"{task.instructions.strip()}\n\n---\n{where}Keep the names of existing functions and classes: "
            "tests call them. Use only the language's standard library. Do not change the tests.")


def retry_prompt(task: Task, output: str) -> str:
    tail = output[-OUTPUT_TAIL:]
    files = ", ".join(task.editable) or "the code"
    return (f"The tests failed:\n```\n{tail}\n```\nThe tests are right; do not change them. "
            f"Fix {files} so they pass.")


def prepare(task: Task, work: Path) -> None:
    """A fresh copy of the task, without what the agent must not see."""
    if work.exists():
        shutil.rmtree(work)
    hidden = {task.folder / name for name in task.hidden}

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if Path(folder, n) in hidden]

    shutil.copytree(task.folder, work, ignore=ignore, symlinks=True)


def restore(task: Task, work: Path) -> None:
    """The task's own test files, whatever the agent did to them."""
    for name in task.restored:
        source, target = task.folder / name, work / name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True)
        elif source.exists():
            shutil.copy2(source, target)


def check(task: Task, work: Path, mode: CheckMode, limits: Limits) -> tuple[bool, str]:
    restore(task, work)
    return run_check(task.check, work, mode, limits.check_seconds, task.writable)


def run_agent(agent: list[str], prompt: str, work: Path, env: dict[str, str], limits: Limits,
              resume: bool) -> dict[str, Any]:
    argv = [*agent, "--headless", "--output", "json", "--approval-mode", "full-auto",
            "--max-turns", str(limits.turns), "--timeout", f"{limits.seconds:.0f}s", "--prompt", prompt]
    if resume:
        argv.append("--continue")
    try:
        proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, errors="replace",
                              timeout=limits.seconds + 60, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"exit_code": -1, "errors": ["the agent did not stop at its own timeout"]}
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        result = {"errors": [proc.stderr.strip()[-500:]]}
    if not isinstance(result, dict):
        result = {}
    result["exit_code"] = proc.returncode
    return result


def account(outcome: Outcome, result: dict[str, Any]) -> None:
    outcome.exits.append(int(result.get("exit_code", -1)))
    outcome.turns += int(result.get("turns") or 0)
    usage = result.get("usage") or {}
    outcome.input_tokens += int(usage.get("input_tokens") or 0)
    outcome.output_tokens += int(usage.get("output_tokens") or 0)
    cost = next((result[k] for k in ("total_cost_usd", "cost_usd", "cost") if isinstance(result.get(k), int | float)),
                None)
    if cost is not None:
        outcome.cost_usd = (outcome.cost_usd or 0.0) + float(cost)


def attempt(task: Task, work: Path, agent: list[str], env: dict[str, str], limits: Limits,
            mode: CheckMode) -> Outcome:
    """Runs the task; its outcome (never raises for what the agent or the check does)."""
    outcome = Outcome(task.key, task.language, checks=mode.label)
    missing = task.missing()
    if missing:
        outcome.status = f"not run: {', '.join(missing)} not installed"
        return outcome
    started = time.monotonic()
    prepare(task, work)
    prompt = first_prompt(task)
    for number in range(1, limits.attempts + 1):
        outcome.attempts = number
        account(outcome, run_agent(agent, prompt, work, env, limits, resume=number > 1))
        passed, output = check(task, work, mode, limits)
        if passed:
            outcome.passed, outcome.status = True, "passed"
            break
        prompt = retry_prompt(task, output)
    outcome.seconds = round(time.monotonic() - started, 2)
    return outcome


def agent_env(state: Path) -> dict[str, str]:
    """The environment of the agent: the caller's, with sessions kept under the run's folder."""
    env = dict(os.environ)
    env["XDG_DATA_HOME"] = str(state / "data")
    env.pop("AIAGENT_DEBUG", None)
    return env
