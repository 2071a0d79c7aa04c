"""Scheduled tasks in the real ``aiagent serve`` on loopback, against FakeLLM, with the
scheduler's clock moved through a file (no test waits a real minute)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.web.scheduling import Clocked, finished_runs, job_of, wait_for
from tests.web.serving import AIAGENT, isolated_env

from aiagent.testing import FakeLLM, ToolCall, Turn


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[Clocked]:
    project = tmp_path / "proj"
    project.mkdir()
    with FakeLLM() as fake:
        env = isolated_env(tmp_path / "home")
        clock = tmp_path / "clock"
        env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-test-123456",
                   AIAGENT_SCHEDULER_CLOCK=str(clock), AIAGENT_SCHEDULER_TICK="0.1")
        setup = Clocked(project, env, clock, fake)
        setup.set_time(time.time())
        yield setup


def test_a_job_runs_when_due_is_stored_as_a_session_and_survives_a_restart(
        clocked: Clocked) -> None:
    server = clocked.start()
    try:
        with server.client() as c:
            r = c.post("/api/schedules", json={"cron": "* * * * *", "prompt": "write the report"})
            assert r.status_code == 201, r.text
            job = r.json()
        assert job["folder"] == str(clocked.project.resolve()) and job["created_by"] == "page"
        clocked.fake.push(Turn(text="report written"))
        clocked.set_time(job["next_run"] + 1)
        runs = wait_for(lambda: finished_runs(server, job["id"], 1), "the first run")
        assert runs[0]["status"] == "completed", runs
        with server.client() as c:
            sessions = c.get("/api/sessions").json()["sessions"]
            ran = next(s for s in sessions if s["id"] == runs[0]["session_id"])
            assert ran["title"].startswith(f"Scheduled {job['id']}: write the report")
            history = c.get(f"/api/sessions/{ran['id']}").json()["messages"]
        assert history[-1]["content"][0]["text"] == "report written"
        # it ran headless: the model was asked once, with the job's prompt
        assert "write the report" in str(clocked.fake.requests[-1])
    finally:
        server.stop()

    # restart: the job is still there, nothing was missed (the clock did not move), and
    # it runs again at its next time
    server = clocked.start()
    try:
        listed = job_of(server, job["id"])
        assert listed["missed"] == 0 and len(listed["runs"]) == 1
        clocked.fake.push(Turn(text="second report"))
        clocked.set_time(listed["next_run"] + 1)
        runs = wait_for(lambda: finished_runs(server, job["id"], 2), "the run after restart")
        assert [r["status"] for r in runs] == ["completed", "completed"]
        assert runs[0]["session_id"] != runs[1]["session_id"]
    finally:
        server.stop()
    assert clocked.fake.remaining == 0


def test_missed_runs_are_reported_not_replayed(clocked: Clocked) -> None:
    added = clocked.cli("add", "*/5 * * * *", "tidy the logs")
    assert added.returncode == 0, added.stderr
    job_id = added.stdout.split()[0]
    # the server was down for an hour: twelve times fell, none is run on start
    clocked.set_time(time.time() + 3600)
    server = clocked.start()
    try:
        job = wait_for(lambda: (j := job_of(server, job_id))["missed"] and j, "the missed report")
        assert job["missed"] in (12, 13), job
        assert "missed while no server was running" in job["missed_note"]
        assert [r["status"] for r in job["runs"]] == ["missed"]
        assert job["next_run"] > clocked.now()
        # legitimate use beside it: the next time due runs normally
        clocked.fake.push(Turn(text="tidied"))
        clocked.set_time(job["next_run"] + 1)
        runs = wait_for(lambda: finished_runs(server, job_id, 2), "the next run")
        assert runs[0]["status"] == "completed"
    finally:
        server.stop()
    assert clocked.fake.remaining == 0


def test_no_overlap_of_the_same_job(clocked: Clocked) -> None:
    server = clocked.start()
    try:
        with server.client() as c:
            job = c.post("/api/schedules", json={"cron": "* * * * *", "prompt": "slow"}).json()
        clocked.fake.push(Turn(text="x" * 30, text_chunks=30, chunk_delay=0.1))  # ~3 s
        clocked.set_time(job["next_run"] + 1)
        wait_for(lambda: any(r["status"] == "running" for r in job_of(server, job["id"])["runs"]),
                 "the first run to start")
        clocked.set_time(job["next_run"] + 61)  # due again while the first still runs
        runs = wait_for(lambda: finished_runs(server, job["id"], 2), "both times")
        assert sorted(r["status"] for r in runs) == ["completed", "missed"], runs
        skipped = next(r for r in runs if r["status"] == "missed")
        assert "previous run was still going" in skipped["note"]
    finally:
        server.stop()
    assert clocked.fake.remaining == 0


def test_a_removed_folder_fails_its_run_and_the_server_keeps_going(clocked: Clocked) -> None:
    sub = clocked.project / "gone"
    sub.mkdir()
    server = clocked.start()
    try:
        with server.client() as c:
            doomed = c.post("/api/schedules", json={"cron": "* * * * *", "prompt": "a",
                                                    "folder": "gone"}).json()
            fine = c.post("/api/schedules", json={"cron": "* * * * *", "prompt": "b"}).json()
        shutil.rmtree(sub)
        clocked.fake.push(Turn(text="b done"))
        clocked.set_time(max(doomed["next_run"], fine["next_run"]) + 1)
        failed = wait_for(lambda: finished_runs(server, doomed["id"], 1), "the failed run")
        assert failed[0]["status"] == "failed" and "no longer exists" in failed[0]["note"]
        assert failed[0]["session_id"] == ""
        done = wait_for(lambda: finished_runs(server, fine["id"], 1), "the other job's run")
        assert done[0]["status"] == "completed"
        with server.client() as c:
            assert c.get("/api/info").status_code == 200
    finally:
        server.stop()


def test_bad_input_and_the_token(clocked: Clocked) -> None:
    (clocked.project / "inside").mkdir()
    server = clocked.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as bare:
            assert bare.post("/api/schedules", json={"cron": "* * * * *", "prompt": "x"}
                             ).status_code == 401
            assert bare.get("/api/schedules").status_code == 401
            assert bare.delete("/api/schedules/abc").status_code == 401
        with server.client(token="wrong-token") as c:
            assert c.get("/api/schedules").status_code == 401
        with server.client() as c:
            cases = [
                ({"cron": "61 * * * *", "prompt": "x"}, 400, "cron"),
                ({"cron": "* * *", "prompt": "x"}, 400, "five fields"),
                ({"cron": "* * * * *", "prompt": ""}, 400, "prompt"),
                ({"cron": "* * * * *", "prompt": "x", "folder": "nope"}, 400, "no such folder"),
                ({"cron": "* * * * *", "prompt": "x", "folder": "/etc"}, 400, "inside"),
                ({"cron": "* * * * *", "prompt": "x", "folder": "../.."}, 400, "inside"),
                ({"cron": 5, "prompt": "x"}, 400, "string"),
            ]
            for body, status, words in cases:
                r = c.post("/api/schedules", json=body)
                assert r.status_code == status and words in r.json()["error"], (body, r.text)
            r = c.post("/api/schedules", content=b"{not json")
            assert r.status_code == 400 and "error" in r.json()
            assert c.get("/api/schedules").json()["schedules"] == []  # nothing was written
            r = c.delete("/api/schedules/0123456789")
            assert r.status_code == 404 and "no scheduled task" in r.json()["error"]
            r = c.delete("/api/schedules/..%2F..")
            assert r.status_code == 404
            # legitimate use beside it
            ok = c.post("/api/schedules", json={"cron": "0 9 * * 1-5", "prompt": "standup",
                                                "folder": "inside"})
            assert ok.status_code == 201, ok.text
            assert c.delete(f"/api/schedules/{ok.json()['id']}").status_code == 204
            assert c.get("/api/schedules").json()["schedules"] == []
    finally:
        server.stop()


def test_the_model_schedules_with_approval(clocked: Clocked) -> None:
    from tests.web.serving import sse_events

    call = ToolCall("schedule_task", {"cron": "17 3 * * *", "prompt": "nightly summary"})
    clocked.fake.push(Turn(text="scheduling", tool_calls=[call]), Turn(text="done"),
                      Turn(text="again", tool_calls=[call]), Turn(text="refused"))
    server = clocked.start()
    try:
        with server.client() as c:
            for answer in ("once", "deny"):
                sid = c.post("/api/sessions", json={}).json()["id"]
                asked = []
                with c.stream("POST", f"/api/sessions/{sid}/messages",
                              json={"text": "schedule it"}) as response:
                    for event in sse_events(response.iter_lines()):
                        if event.type == "approval-request":
                            asked.append(event.data["tool"])
                            c.post(f"/api/sessions/{sid}/approvals/{event.data['id']}",
                                   json={"answer": answer})
                assert asked == ["schedule_task"]
            jobs = c.get("/api/schedules").json()["schedules"]
        assert [(j["cron"], j["prompt"], j["created_by"]) for j in jobs] == \
            [("17 3 * * *", "nightly summary", "tool")]  # the denied one wrote nothing
    finally:
        server.stop()
    assert clocked.fake.remaining == 0


def test_with_only_an_openai_key_the_chat_and_the_scheduler_both_use_openai(
        tmp_path: Path) -> None:
    """A new user with only OPENAI_API_KEY: the chat and every scheduled task go through one
    choice of provider (detected), and ``config show`` names the same, with its reason."""
    project = tmp_path / "proj"
    project.mkdir()
    with FakeLLM() as fake:
        env = isolated_env(tmp_path / "home")
        clock = tmp_path / "clock"
        env.update(OPENAI_BASE_URL=fake.url + "/v1", OPENAI_API_KEY="sk-test-only-openai-123",
                   AIAGENT_SCHEDULER_CLOCK=str(clock), AIAGENT_SCHEDULER_TICK="0.1")
        setup = Clocked(project, env, clock, fake)
        setup.set_time(time.time())
        shown = subprocess.run([AIAGENT, "config", "show"], cwd=project, env=env,
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 0, shown.stderr
        assert "# provider: openai   (OPENAI_API_KEY is set)" in shown.stdout, shown.stdout
        assert "# model: gpt-4.1   (the default model for openai)" in shown.stdout
        assert 'default = "anthropic"' not in shown.stdout  # no provider a run would not use
        server = setup.start("--cwd", str(project))  # no --provider: detected, as a user would
        try:
            with server.client() as c:
                info = c.get("/api/info").json()
                assert (info["provider"], info["model"]) == ("openai", "gpt-4.1")
                job = c.post("/api/schedules", json={"cron": "* * * * *",
                                                     "prompt": "summarise"}).json()
            fake.push(Turn(text="summary"))
            setup.set_time(job["next_run"] + 1)
            runs = wait_for(lambda: finished_runs(server, job["id"], 1), "the scheduled run")
            assert runs[0]["status"] == "completed", runs
            assert fake.requests[-1]["path"] == "/v1/chat/completions"  # the OpenAI wire
        finally:
            server.stop()


def test_schedule_list_says_why_a_run_failed(tmp_path: Path) -> None:
    """No provider at all: the run fails, and ``schedule list`` gives the reason."""
    project = tmp_path / "proj"
    project.mkdir()
    with FakeLLM() as fake:
        env = isolated_env(tmp_path / "home")
        clock = tmp_path / "clock"
        env.update(AIAGENT_SCHEDULER_CLOCK=str(clock), AIAGENT_SCHEDULER_TICK="0.1",
                   OLLAMA_HOST="127.0.0.1:9")  # nothing answers there
        setup = Clocked(project, env, clock, fake)
        setup.set_time(time.time())
        added = setup.cli("add", "* * * * *", "anything")
        assert added.returncode == 0, added.stderr
        job_id = added.stdout.split()[0]
        server = setup.start("--cwd", str(project))
        try:
            listed = job_of(server, job_id)
            setup.set_time(listed["next_run"] + 1)
            runs = wait_for(lambda: finished_runs(server, job_id, 1), "the failed run")
            assert runs[0]["status"] == "failed"
        finally:
            server.stop()
        shown = setup.cli("list")
        assert "last: failed" in shown.stdout, shown.stdout
        assert "why: no model provider is available" in shown.stdout, shown.stdout
