"""``aiagent schedule list | add | remove`` through the real command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.web.serving import AIAGENT, isolated_env


def run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([AIAGENT, "schedule", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)


def listed(env: dict[str, str], cwd: Path) -> list[dict[str, object]]:
    out = run(env, cwd, "list", "--json")
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


def test_add_list_remove(tmp_path: Path) -> None:
    env, project = isolated_env(tmp_path / "home"), tmp_path / "proj"
    project.mkdir()
    added = run(env, project, "add", "30 2 * * *", "Summarise yesterday's errors")
    assert added.returncode == 0, added.stderr
    job_id = added.stdout.split()[0]
    other = run(env, tmp_path, "add", "*/15  *  * * *", "poll", "--folder", str(project))
    assert other.returncode == 0, other.stderr
    jobs = listed(env, tmp_path)
    assert [(j["cron"], j["folder"]) for j in jobs] == [
        ("30 2 * * *", str(project.resolve())), ("*/15 * * * *", str(project.resolve()))]
    text = run(env, project, "list")
    assert job_id in text.stdout and "Summarise yesterday" in text.stdout
    removed = run(env, project, "remove", job_id)
    assert removed.returncode == 0 and job_id in removed.stdout
    assert [j["prompt"] for j in listed(env, project)] == ["poll"]


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    env, project = isolated_env(tmp_path / "home"), tmp_path / "proj"
    project.mkdir()
    cases = [
        (("add", "61 * * * *", "x"), "cron '61 * * * *'"),
        (("add", "* * * *", "x"), "five fields"),
        (("add", "0 0 30 2 *", "x"), "day-of-month"),
        (("add", "* * * * *", "   "), "prompt"),
        (("add", "* * * * *", "x", "--folder", str(tmp_path / "missing")), "no such folder"),
        (("remove", "0123456789"), "no scheduled task '0123456789'"),
        (("remove", "../../etc"), "no scheduled task"),
    ]
    for args, words in cases:
        out = run(env, project, *args)
        assert out.returncode == 2, (args, out)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("aiagent: error: ") and words in lines[0], \
            (args, out.stderr)
        assert "Traceback" not in out.stderr
    assert listed(env, project) == []
    ok = run(env, project, "add", "0 9 * * 1-5", "standup notes")  # legitimate use beside it
    assert ok.returncode == 0 and len(listed(env, project)) == 1
