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


# ---- model calls and hung tasks on Ray ----------------------------------------------------

def test_ray_model_calls_share_one_limit_and_one_budget(tmp_path: Path, home: Path) -> None:
    """The coordinator is one Ray actor for every Ray task: at most N calls in flight, reached,
    and the budget stops new calls across tasks."""
    from tests.batch.test_batch_llm import check_budget, check_concurrency

    python = _ray_python()
    for limit in (1, 2):
        check_concurrency(tmp_path / f"c{limit}", limit, "--engine", "ray", python=python)
    check_budget(tmp_path / "budget", "--engine", "ray", python=python)


HANG = '''
import json, os, sys, time
from pathlib import Path
from aiagent.app.batch.engines import run_ray
from aiagent.app.batch.worker import Limits

def body(task):  # the Ray task itself hangs (its worker's own time limit never fires)
    Path(task["out"]).write_text(str(os.getpid()))
    if task["name"] == "hang":
        time.sleep(600)
    return {"key": task["key"], "name": task["name"], "status": "done", "reason": ""}

out = Path(sys.argv[1])
tasks = [{"key": n, "name": n, "job": "x", "spec": {"source": n}, "out": str(out / f"{n}.pid")}
         for n in ("hang", "ok")]
results = []
began = time.monotonic()
run_ray(tasks, Limits(2, 0), 2, out, lambda t: None, results.append, body=body)
print(json.dumps({"results": results, "seconds": time.monotonic() - began}))
'''


def test_a_hung_ray_task_is_cancelled_by_the_driver(tmp_path: Path) -> None:
    import subprocess

    import psutil

    python = _ray_python()
    (tmp_path / "hang.py").write_text(HANG)
    done = subprocess.run([python, str(tmp_path / "hang.py"), str(tmp_path)], capture_output=True,
                          text=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    results = {r["name"]: r for r in report["results"]}
    assert results["ok"]["status"] == "done"
    assert results["hang"]["reason"] == "ray task hung: no result 7s after it began; cancelled"  # 2s + 5s
    assert report["seconds"] < 120
    pid = int((tmp_path / "hang.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
