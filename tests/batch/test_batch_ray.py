"""`aiagent batch --engine ray` on a local Ray instance (2 CPUs): the same results as the
local engine; without Ray, one line naming the extra."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest
from tests.batch.conftest import VULNERABLE, make_folder, make_remote, run_cli

RAY_PYTHON = "AIAGENT_RAY_PYTHON"  # an interpreter with Ray and aiagent (default: this one)


def _ray_python() -> str:
    python = os.environ.get(RAY_PYTHON) or sys.executable
    if python == sys.executable and importlib.util.find_spec("ray") is not None:
        return python
    if python != sys.executable and Path(python).is_file():
        return python
    reason = f"needs Ray (pip install 'aiagent[ray]', or {RAY_PYTHON}=an interpreter with it; .ci/run installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} — in CI this test must run", pytrace=False)
    pytest.skip(f"!!! SKIPPED: {reason}")


def _findings(out: Path) -> dict[str, tuple[str, dict]]:
    summary = json.loads((out / "summary.json").read_text())
    return {r["source"]: (r["status"], r["findings"]) for r in summary["repositories"]}


def test_ray_engine_gives_the_local_engine_results(tmp_path: Path, home: Path) -> None:
    python = _ray_python()
    make_folder(tmp_path / "a", {"app.py": VULNERABLE})
    make_folder(tmp_path / "b", {"ok.py": "print('fine')\n"})
    remote = make_remote(tmp_path, "r", {"x/app.py": VULNERABLE})
    (tmp_path / "repos.txt").write_text(f"a\nb\n{remote}\nfile://{tmp_path}/gone.git\n")
    base = ("batch", "security-audit", "--repos", str(tmp_path / "repos.txt"))
    local = run_cli(*base, "--out", str(tmp_path / "local"), python=python)
    ray = run_cli(*base, "--out", str(tmp_path / "ray"), "--engine", "ray", "--workers", "2",
                  python=python, timeout=600)
    assert (local.returncode, ray.returncode) == (1, 1), ray.stderr[-2000:]
    assert _findings(tmp_path / "ray") == _findings(tmp_path / "local")
    assert json.loads((tmp_path / "ray" / "summary.json").read_text())["engine"] == "ray"
    assert sum(f["high"] for status, f in _findings(tmp_path / "ray").values()) >= 2


def test_without_ray_the_error_names_the_extra(tmp_path: Path, home: Path) -> None:
    make_folder(tmp_path / "a", {"app.py": VULNERABLE})
    (tmp_path / "repos.txt").write_text("a\n")
    blocker = tmp_path / "noray"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['ray'] = None\n")
    done = run_cli("batch", "security-audit", "--repos", str(tmp_path / "repos.txt"), "--out",
                   str(tmp_path / "out"), "--engine", "ray",
                   env={"PYTHONPATH": f"{blocker}{os.pathsep}{Path(__file__).resolve().parents[2] / 'src'}"})
    assert done.returncode == 2
    assert done.stderr.strip() == "aiagent: error: the ray engine needs Ray: pip install 'aiagent[ray]'"
