"""Shared fixtures: an isolated home folder and a runner for the real ``aiagent`` command.

The suite runs in parallel (pytest-xdist: ``-n auto --dist loadfile`` in pyproject's addopts;
``-n 0`` runs it in one process). Every test has its own tmp folder, HOME, ports (bound to 0)
and tmux server, so tests may run side by side; the tests of one module run on one worker, in
order, so a module-scoped fixture (a server, a browser) is built once, as in a serial run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

AIAGENT = str(Path(sys.executable).with_name("aiagent"))
PROVIDER_VARS = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "OLLAMA_HOST", "AIAGENT_PROVIDER", "AIAGENT_MODEL",
)


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a subprocess: its own HOME and XDG folders, no provider variables."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARS}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        NO_COLOR="1",
    )
    return env


RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_cli(clean_env: dict[str, str], tmp_path: Path) -> RunCli:
    """Run the installed ``aiagent`` command; stdin is empty unless ``input`` is given."""

    def run(
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        input: str | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        return subprocess.run(
            [AIAGENT, *args],
            cwd=cwd or tmp_path,
            env={**clean_env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            **stdin,  # type: ignore[arg-type]
        )

    return run


MAX_WORKERS = 8


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core (most tests wait on a subprocess or a loopback
    server, not on the CPU), at most 8; ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides it."""
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if wanted.isdigit():
        return int(wanted)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(2, min(MAX_WORKERS, 2 * (cores or 1)))


TERMINAL_VARS = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand the workers our terminal size variables, as they are."""
    node.workerinput["terminal_env"] = {k: os.environ.get(k) for k in TERMINAL_VARS}


def pytest_configure(config: pytest.Config) -> None:
    """An xdist worker starts with ``COLUMNS=80 LINES=24`` set (readline, on a pipe), which
    commands under test inherit (``ps`` then cuts its lines at 80): put back the controller's."""
    terminal = getattr(config, "workerinput", {}).get("terminal_env")
    for key, value in (terminal or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


MISSING_TOOL_WORDS = ("not installed", "is missing", "no sandbox", "needs ")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI (``CI=true``), a test skipped because a tool is missing fails the run: CI
    installs every tool the tests use, so such a skip means an install went wrong."""
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller sees every report
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    missing = [r for r in skipped if any(w in str(r.longrepr).lower() for w in MISSING_TOOL_WORDS)]
    if missing:
        for report in missing:
            print(f"ci: a test skipped for a missing tool: {report.nodeid}: {report.longrepr}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
