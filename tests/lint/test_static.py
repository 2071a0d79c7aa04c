"""The test command also runs ruff over everything and a strict type check of the core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_is_clean() -> None:
    proc = _run("ruff", "check", "src", "tests", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_contracts_core_and_providers_type_check_strictly() -> None:
    proc = _run(
        "mypy", "src/aiagent/contracts", "src/aiagent/agent/core", "src/aiagent/infra/providers",
        "src/aiagent/agent/permissions", "src/aiagent/infra/config/trust.py", "src/aiagent/infra/config/flags.py",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
