"""`aiagent batch` on the local engine: results per repository and a summary, resume from
the state file, kill-and-resume, limits, and hostile repositories failing alone."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.batch.conftest import LOG, SRC, VULNERABLE, make_folder, make_remote, run_cli


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def _by_source(summary: dict) -> dict[str, dict]:
    return {r["source"]: r for r in summary["repositories"]}


def test_security_audit_batch_writes_reports_and_a_summary(tmp_path: Path, home: Path) -> None:
    one = make_folder(tmp_path / "one", {"app.py": VULNERABLE})
    clean = make_folder(tmp_path / "clean", {"README.md": "# nothing here\n"})
    remote = make_remote(tmp_path, "remote", {"src/app.py": VULNERABLE}, branch="release")
    missing = f"file://{tmp_path}/missing.git"
    (tmp_path / "repos.txt").write_text(f"{one}\n{clean}\n{remote} ref=release\n{missing}\n")
    out = tmp_path / "out"
    done = run_cli("batch", "security-audit", "--repos", str(tmp_path / "repos.txt"), "--out", str(out))
    assert done.returncode == 1, done.stderr  # one task failed
    summary = _summary(out)
    assert (summary["tasks"], summary["done"], summary["failed"]) == (4, 3, 1)
    repos = _by_source(summary)
    assert repos[str(one)]["findings"]["high"] >= 1
    assert repos[remote]["findings"] == repos[str(one)]["findings"]
    assert sum(repos[str(clean)]["findings"].values()) == 0
    failure = summary["failures"][0]
    assert failure["source"] == missing and failure["reason"].startswith("git clone failed: fatal:")
    for source in (str(one), remote):
        folder = out / "repos" / repos[source]["repository"]
        report = json.loads((folder / "security-audit.json").read_text())
        assert report["findings"]
        assert json.loads((folder / "security-audit.sarif").read_text())["runs"]
    assert not (out / "repos" / repos[missing]["repository"]).exists()
    text = (out / "summary.md").read_text()
    assert "| Critical | High | Medium | Low | Info |" in text and failure["reason"] in text
    assert "batch: [4/4]" in done.stderr  # plain progress lines in CI
    assert not any((out / ".work").iterdir())  # clones are removed after their task


def test_a_rerun_skips_what_is_done_unless_forced(tmp_path: Path, home: Path) -> None:
    make_folder(tmp_path / "a", {"app.py": VULNERABLE})
    make_folder(tmp_path / "b", {"app.py": "print('hi')\n"})
    (tmp_path / "repos.txt").write_text("a\nb\n")
    args = ("batch", "security-audit", "--repos", str(tmp_path / "repos.txt"), "--out", str(tmp_path / "out"))
    assert run_cli(*args).returncode == 0
    first = _summary(tmp_path / "out")
    again = run_cli(*args)
    assert again.returncode == 0 and "0 done" not in again.stdout
    second = _summary(tmp_path / "out")
    assert second["skipped_as_done_before"] == 2 and "batch: [" not in again.stderr
    assert [r["findings"] for r in second["repositories"]] == [r["findings"] for r in first["repositories"]]
    forced = run_cli(*args, "--force")
    assert forced.returncode == 0 and _summary(tmp_path / "out")["skipped_as_done_before"] == 0
    assert "batch: [2/2]" in forced.stderr


def test_log_analysis_batch_and_its_limits(tmp_path: Path, home: Path) -> None:
    make_folder(tmp_path / "svc", {"logs/app.log": LOG, "logs/db.log": LOG})
    hang = make_folder(tmp_path / "hang", {"README.md": "x\n"})
    os.mkfifo(hang / "stuck.log")  # nobody writes: reading it never ends
    (tmp_path / "repos.txt").write_text("svc files=logs/app.log,logs/db.log\nhang files=stuck.log\n"
                                        "svc2 files=nothing.log\n")
    make_folder(tmp_path / "svc2", {"a.txt": "x"})
    out = tmp_path / "out"
    done = run_cli("batch", "log-analysis", "--repos", str(tmp_path / "repos.txt"), "--out", str(out),
                   "--task-timeout", "3")
    assert done.returncode == 1, done.stderr
    repos = {r["repository"].split("-")[0]: r for r in _summary(out)["repositories"]}
    assert repos["svc"]["status"] == "done" and repos["svc"]["findings"]
    doc = json.loads((out / "repos" / repos["svc"]["repository"] / "logs" / "logs_app.log.json").read_text())
    assert doc["severity"] in repos["svc"]["findings"]
    assert repos["hang"]["reason"] == "time limit reached (3s); killed"
    assert repos["svc2"]["reason"] == "nothing.log: no such file in the repository"


def test_a_task_over_the_memory_limit_fails_alone(tmp_path: Path, home: Path) -> None:
    make_folder(tmp_path / "a", {"app.py": VULNERABLE})
    (tmp_path / "repos.txt").write_text("a\n")
    out = tmp_path / "out"
    done = run_cli("batch", "security-audit", "--repos", str(tmp_path / "repos.txt"), "--out", str(out),
                   "--task-memory", "1")
    assert done.returncode == 1
    assert _summary(out)["failures"][0]["reason"].startswith("memory limit reached (")


def test_hostile_repositories_fail_with_one_line_and_the_batch_goes_on(tmp_path: Path, home: Path) -> None:
    marker = tmp_path / "pwned"
    good = make_remote(tmp_path, "good", {"app.py": VULNERABLE})
    link = make_remote(tmp_path, "link", {"a.py": "x = 1\n"}, links={"leak": "/etc/passwd"})
    agent = make_remote(tmp_path, "agent", {".agent/config.toml": f'[hooks]\nstart = "touch {marker}"\n'})
    skills = make_remote(tmp_path, "skills", {".agent/skills/evil/SKILL.md": "---\nname: evil\n---\n"})
    inplace = make_folder(tmp_path / "inplace", {"a.py": "x = 1\n"})
    subprocess.run(["git", "init", "-q"], cwd=inplace, check=True)
    subprocess.run(["git", "config", "core.fsmonitor", f"touch {marker}"], cwd=inplace, check=True)
    (tmp_path / "repos.txt").write_text("\n".join([good, link, agent, skills, str(inplace)]) + "\n")
    out = tmp_path / "out"
    done = run_cli("batch", "security-audit", "--repos", str(tmp_path / "repos.txt"), "--out", str(out))
    assert done.returncode == 1
    repos = _by_source(_summary(out))
    assert repos[good]["status"] == "done"
    assert repos[link]["reason"] == "symlink out of the repository: leak -> /etc/passwd"
    assert repos[agent]["reason"] == "hostile .agent/: [hooks] in .agent/config.toml (never run in a batch)"
    assert repos[skills]["reason"] == "hostile .agent/: .agent/skills would run code (never in a batch)"
    assert repos[str(inplace)]["reason"] == "hostile .git/config: core.fsmonitor names a program (never run in a batch)"
    assert not marker.exists()


def test_an_interrupted_batch_loses_only_the_task_in_flight(tmp_path: Path, home: Path) -> None:
    for name in ("r1", "r2", "r4"):
        make_folder(tmp_path / name, {"app.log": LOG})
    make_folder(tmp_path / "r3", {"README.md": "x\n"})
    os.mkfifo(tmp_path / "r3" / "app.log")
    (tmp_path / "repos.txt").write_text("".join(f"{n} files=app.log\n" for n in ("r1", "r2", "r3", "r4")))
    out = tmp_path / "out"
    args = [sys.executable, "-m", "aiagent", "batch", "log-analysis", "--repos",
            str(tmp_path / "repos.txt"), "--out", str(out), "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": SRC, "CI": "true"}
    driver = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(out / "state.sqlite", lambda rows: rows.get("r3") == "running", 120)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    rows = _rows(out / "state.sqlite")
    assert (rows["r1"], rows["r2"], rows["r3"]) == ("done", "done", "running") and "r4" not in rows
    resumed = subprocess.run([*args, "--task-timeout", "2"], env=env, capture_output=True, text=True,
                             timeout=120, check=False)
    summary = _summary(out)
    assert summary["skipped_as_done_before"] == 2
    assert "r1-" not in resumed.stderr and "r2-" not in resumed.stderr
    repos = {r["repository"].split("-")[0]: r for r in summary["repositories"]}
    assert repos["r3"]["reason"] == "time limit reached (2s); killed"
    assert repos["r4"]["status"] == "done"
    attempts = dict(sqlite3.connect(out / "state.sqlite").execute("SELECT name, attempts FROM tasks"))
    assert {k.split("-")[0]: v for k, v in attempts.items()} == {"r1": 1, "r2": 1, "r3": 2, "r4": 1}


def _rows(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        with sqlite3.connect(path) as db:
            return {name.split("-")[0]: status for name, status in db.execute("SELECT name, status FROM tasks")}
    except sqlite3.Error:
        return {}


def _wait_for(path: Path, ready, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready(_rows(path)):
            return
        time.sleep(0.2)
    raise AssertionError(f"the batch never got there: {_rows(path)}")


def test_wiki_and_code_review_batches(tmp_path: Path, home: Path) -> None:
    remote = make_remote(tmp_path, "proj", {"pkg/__init__.py": '"""A package."""\n', "pkg/core.py":
                         'def add(a, b):\n    """Add."""\n    return a + b\n'})
    work = tmp_path / "proj-work"
    (work / "pkg" / "run.py").write_text(VULNERABLE)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "vuln"],
                   cwd=work, check=True)
    subprocess.run(["git", "push", "-q", str(tmp_path / "proj.git"), "HEAD:main"], cwd=work, check=True)
    (tmp_path / "wiki.txt").write_text(f"{remote}\n")
    (tmp_path / "review.txt").write_text(f"{remote} range=HEAD~1..HEAD\n{remote} range=nope..HEAD\n")
    wiki = run_cli("batch", "wiki", "--repos", str(tmp_path / "wiki.txt"), "--out", str(tmp_path / "w"))
    assert wiki.returncode == 0, wiki.stderr
    name = _summary(tmp_path / "w")["repositories"][0]["repository"]
    pages = list((tmp_path / "w" / "repos" / name / "wiki").rglob("*.md"))
    assert any("add" in p.read_text() for p in pages)
    review = run_cli("batch", "code-review", "--repos", str(tmp_path / "review.txt"), "--out", str(tmp_path / "r"))
    assert review.returncode == 1, review.stderr
    by_status = {r["status"]: r for r in _summary(tmp_path / "r")["repositories"]}
    assert by_status["done"]["findings"].get("high", 0) + by_status["done"]["findings"].get("critical", 0) >= 1
    assert by_status["failed"]["reason"].startswith("code-review: ")
    assert "\n" not in by_status["failed"]["reason"]
