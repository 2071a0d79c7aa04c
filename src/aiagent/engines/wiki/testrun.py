"""``--test-report``: find the project's test command, run it, read the results.

The command comes from the project's build files (rules in ``testcommands.toml``). It runs
through the one process runner (its own process tree, killed with everything it started
on the time limit) with the environment a shell tool gives a command (the agent's
credentials left out), inside the sandbox as an unapproved shell command would be: writes
confined to the project and a temporary folder, no network unless ``[sandbox] network``.
When no sandbox works here it runs without one and the report says so. Running the tests
runs the project's code: the CLI allows it only in a trusted folder.

Results: pytest through ``--junitxml`` to a temporary file, ``go test -json`` events,
cargo's ``test result:`` lines, and counts read from the output of npm and swift.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from aiagent.agent.tools.shell.env import command_env
from aiagent.infra.process.collect import run_collected
from aiagent.infra.process.runner import new_tag
from aiagent.infra.sandbox import SandboxUnavailable, sandbox_argv
from aiagent.infra.sandbox import detect as detect_sandbox


@dataclass(frozen=True, slots=True)
class TestOptions:
    timeout: float = 600.0
    sandbox: Mapping[str, Any] = field(default_factory=dict)  # the [sandbox] settings
    env: Mapping[str, str] | None = None  # default: ours


@dataclass(frozen=True, slots=True)
class Runner:
    name: str
    argv: tuple[str, ...]
    parser: str


@dataclass(slots=True)
class Failure:
    name: str
    message: str


@dataclass(slots=True)
class TestResult:
    runner: str = ""  # "" when no test framework was found
    command: str = ""
    note: str = ""  # why nothing ran, a time-out, the sandbox used or missing
    exit_code: int | None = None
    duration: float = 0.0
    timed_out: bool = False
    counts: dict[str, int] = field(default_factory=dict)  # passed, failed, skipped, errors
    failures: list[Failure] = field(default_factory=list)
    sandbox: str = ""
    output_tail: str = ""


@cache
def _rules() -> list[dict[str, Any]]:
    data = resources.files("aiagent.engines.wiki").joinpath("testcommands.toml").read_text("utf-8")
    runners: list[dict[str, Any]] = tomllib.loads(data)["runner"]
    return runners


def _marker(root: Path, marker: Mapping[str, str]) -> bool:
    path = root / marker["file"]
    if not path.is_file():
        return False
    if "contains" not in marker and "script" not in marker:
        return True
    try:
        text = path.read_text("utf-8", errors="replace")[:1_000_000]
    except OSError:
        return False
    if "contains" in marker:
        return marker["contains"] in text
    try:
        script = json.loads(text).get("scripts", {}).get(marker["script"], "")
    except (ValueError, AttributeError):
        return False
    return isinstance(script, str) and bool(script) and "no test specified" not in script


def detect(root: Path) -> Runner | None:
    for rule in _rules():
        if any(_marker(root, m) for m in rule["markers"]):
            return Runner(rule["name"], tuple(rule["argv"]), rule["parser"])
    return None


def _python(root: Path) -> str:
    for venv in (".venv", "venv"):
        candidate = root / venv / "bin" / "python"
        if candidate.is_file():
            return str(candidate)
    return "python3"


def run_tests(root: Path, options: TestOptions) -> TestResult:
    runner = detect(root)
    if runner is None:
        return TestResult(note="no test framework found: no pytest configuration, go.mod, Cargo.toml, "
                               "package.json test script or Package.swift in the project root")
    work = Path(tempfile.mkdtemp(prefix="aiagent-wiki-tests-"))
    try:
        junit = work / "junit.xml"
        argv = [a.replace("{python}", _python(root)).replace("{junit}", str(junit)) for a in runner.argv]
        result = TestResult(runner.name, " ".join(argv[:1] + [a for a in argv[1:] if str(work) not in a]))
        if shutil.which(argv[0], path=(options.env or os.environ).get("PATH")) is None and "/" not in argv[0]:
            result.note = f"the test command {argv[0]!r} was not found on PATH; no test was run"
            return result
        stdout, text = _execute(root, argv, work, options, result)
        _parse(runner.parser, result, junit, stdout, text)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _execute(root: Path, argv: list[str], work: Path, options: TestOptions,
             result: TestResult) -> tuple[str, str]:
    """Run; fill in exit code, duration and time-out; return (stdout, stdout + stderr)."""
    import asyncio


    argv = _sandboxed(argv, root, work, options.sandbox, result)
    env = command_env(new_tag(), base=options.env, cwd=root)
    try:
        done = asyncio.run(run_collected(argv, cwd=root, timeout=options.timeout, env=env))
    except OSError as exc:
        result.note = f"the test command could not start: {exc.strerror or exc}"
        return "", ""
    result.exit_code, result.duration, result.timed_out = done.exit_code, done.outcome.duration, done.timed_out
    text = (done.stdout + b"\n" + done.stderr).decode("utf-8", "replace")
    result.output_tail = text.strip()[-4000:]
    result.note = (f"timed out after {options.timeout:g} s: the test run was stopped and its processes "
                   "killed; the results below are what it printed until then") if done.timed_out else ""
    return done.stdout.decode("utf-8", "replace"), text


def _sandboxed(argv: list[str], root: Path, work: Path, config: Mapping[str, Any], result: TestResult) -> list[str]:

    try:
        wrapped = sandbox_argv(argv, root, bool(config.get("network", False)),
                               writable=[work, *config.get("writable", ())],
                               backend=str(config.get("backend") or "auto"))
    except SandboxUnavailable as exc:
        result.sandbox = f"none ({exc})"
        return argv
    info = detect_sandbox(str(config.get("backend") or "auto"))
    network = "network allowed" if config.get("network") else "no network"
    result.sandbox = f"{info.backend}: writes confined to the project and a temporary folder, {network}"
    return wrapped


def _parse(parser: str, result: TestResult, junit: Path, stdout: str, text: str) -> None:
    from aiagent.engines.wiki import testparse

    if parser == "junit":
        testparse.junit(junit, result)
    elif parser == "go-json":
        testparse.go_json(stdout, result)
    elif parser == "cargo":
        testparse.cargo(text, result)
    if not result.counts:
        testparse.counts(text, result)
