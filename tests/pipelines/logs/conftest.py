"""Fixtures for the log-analysis tests: logs written to tmp_path, and a runner of the
real ``aiagent`` command that feeds stdin as bytes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

AIAGENT = str(Path(sys.executable).with_name("aiagent"))

RunBytes = Callable[..., subprocess.CompletedProcess[bytes]]


@pytest.fixture
def run_bytes(clean_env: dict[str, str], tmp_path: Path) -> RunBytes:
    def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
        feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
        return subprocess.run([AIAGENT, *args], cwd=tmp_path, env={**clean_env, **(env or {})},
                              capture_output=True, timeout=timeout, **feed)  # type: ignore[arg-type]

    return run
