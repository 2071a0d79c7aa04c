"""tests/conftest.py's rule, under the parallel runner as the README's command uses it: with
``CI=true`` a test skipped for a missing tool fails the run; other skips, and any skip outside
CI, do not."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
TESTS = '''
import os
import pytest

def test_passes():
    assert "COLUMNS" not in os.environ and "LINES" not in os.environ, os.environ.get("COLUMNS")

def test_needs_a_tool():
    pytest.skip("needs frobnicate: apt-get install frobnicate")

def test_skips_for_a_reason_of_its_own():
    pytest.skip("Landlock has no PID namespace")
'''


def _run(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "tests").mkdir(exist_ok=True)
    shutil.copy(CONFTEST, tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "test_skips.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q -rs -n 2 --dist loadfile -p no:cacheprovider\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_missing_tool_skip_fails_a_parallel_ci_run(tmp_path: Path) -> None:
    proc = _run(tmp_path, "true")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ci: a test skipped for a missing tool: tests/test_skips.py::test_needs_a_tool" in proc.stdout
    assert "test_skips_for_a_reason_of_its_own" not in proc.stdout.split("ci: a test skipped")[1]
    assert "SKIPPED [1] tests/test_skips.py:9: needs frobnicate" in proc.stdout  # -rs: the reason
    assert "bringing up nodes" in proc.stdout  # it ran under xdist


def test_outside_ci_the_same_skips_pass(tmp_path: Path) -> None:
    proc = _run(tmp_path, "")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed, 2 skipped" in proc.stdout and "ci: " not in proc.stdout
