"""Shared fixtures: an isolated home folder and a runner for the real ``aiagent`` command."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

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


MISSING_TOOL_WORDS = ("not installed", "is missing", "no sandbox", "needs ")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI (``CI=true``), a test skipped because a tool is missing fails the run: CI
    installs every tool the tests use, so such a skip means an install went wrong."""
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    missing = [r for r in skipped if any(w in str(r.longrepr).lower() for w in MISSING_TOOL_WORDS)]
    if missing:
        for report in missing:
            print(f"ci: a test skipped for a missing tool: {report.nodeid}: {report.longrepr}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
