"""The real ``aiagent serve`` on loopback, driven with httpx against FakeLLM."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.web.serving import AIAGENT, Event, Served, isolated_env, sse_events

from aiagent.testing import ToolCall, Turn


@pytest.fixture(autouse=True)
def script_used_up(served: Served) -> Iterator[None]:
    yield
    assert served.fake.remaining == 0, "a test left FakeLLM turns unused"


def run_turn(served: Served, sid: str, text: str, answers: dict[str, str] | None = None
             ) -> list[Event]:
    """POST a message and read its whole stream, answering approvals from ``answers``
    (command substring -> answer)."""
    events: list[Event] = []
    with served.client() as c, c.stream("POST", f"/api/sessions/{sid}/messages",
                                         json={"text": text}) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for event in sse_events(response.iter_lines()):
            events.append(event)
            if event.type == "approval-request":
                answer = next((a for k, a in (answers or {}).items()
                               if k in (event.data["command"] or "")), "deny")
                r = c.post(f"/api/sessions/{sid}/approvals/{event.data['id']}",
                           json={"answer": answer})
                assert r.status_code == 200, r.text
    return events


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def test_sse_order_and_ids(served: Served) -> None:
    served.fake.push(Turn(text="Hello there, friend.", text_chunks=4))
    sid = served.new_session()
    events = run_turn(served, sid, "hi")
    assert types(events) == ["turn-start"] + ["text"] * 4 + ["usage", "iteration-end", "done"]
    assert "".join(e.data["text"] for e in events if e.type == "text") == "Hello there, friend."
    turn = events[0].id.rpartition("-")[0]
    assert events[0].data == {"turn": turn, "session": sid}
    assert [e.id for e in events] == [f"{turn}-{n}" for n in range(1, 9)]
    assert events[-1].data["stop_reason"] == "completed"
    with served.client() as c:  # the history is the stored session, verbatim
        history = c.get(f"/api/sessions/{sid}").json()
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
    assert history["messages"][1]["content"][0]["text"] == "Hello there, friend."
    assert history["title"] == "hi"


def test_reconnect_with_last_event_id_loses_and_repeats_nothing(served: Served) -> None:
    text = "abcdefghijklmnopqrst"
    served.fake.push(Turn(text=text, text_chunks=20, chunk_delay=0.05))
    sid = served.new_session()
    first: list[Event] = []
    with served.client() as c, c.stream("POST", f"/api/sessions/{sid}/messages",
                                         json={"text": "go"}) as response:
        for event in sse_events(response.iter_lines()):
            first.append(event)
            if len(first) == 3:
                break  # the connection drops mid-turn
    time.sleep(0.3)  # the turn goes on without a reader
    with served.client() as c, c.stream("GET", f"/api/sessions/{sid}/events",
                                         headers={"Last-Event-ID": first[-1].id}) as response:
        assert response.status_code == 200
        rest = list(sse_events(response.iter_lines()))
    both = first + rest
    seqs = [int(e.id.rpartition("-")[2]) for e in both]
    assert seqs == list(range(1, len(both) + 1))  # contiguous: no loss, no duplicate
    assert "".join(e.data["text"] for e in both if e.type == "text") == text
    assert both[-1].type == "done"
    with served.client() as c:  # a second page joining late gets the whole turn
        whole = list(sse_events(c.get(f"/api/sessions/{sid}/events").iter_lines()))
    assert [e.id for e in whole] == [e.id for e in both]
    with served.client() as c:  # an id from another turn is not silently accepted
        r = c.get(f"/api/sessions/{sid}/events", headers={"Last-Event-ID": "feedbeef0000-2"})
    assert r.status_code == 404 and "error" in r.json()


def test_two_pages_on_one_session_see_the_same_stream(served: Served) -> None:
    served.fake.push(Turn(text="0123456789", text_chunks=10, chunk_delay=0.05))
    sid = served.new_session()
    second: list[Event] = []
    first: list[Event] = []
    with served.client() as c, c.stream("POST", f"/api/sessions/{sid}/messages",
                                         json={"text": "both"}) as response:
        lines = response.iter_lines()
        for event in sse_events(lines):
            first.append(event)
            if event.type == "text":  # mid-turn, a second page joins
                turn = event.id.rpartition("-")[0]
                with served.client() as other, other.stream(
                        "GET", f"/api/sessions/{sid}/events", params={"turn": turn}) as joined:
                    second = list(sse_events(joined.iter_lines()))
                break
        first += list(sse_events(lines))
    assert [e.id for e in first] == [e.id for e in second]
    assert [e.data for e in first] == [e.data for e in second]
    assert second[-1].type == "done"


def test_every_api_call_needs_the_token(served: Served) -> None:
    sid = served.new_session()
    calls = [("GET", "/api/sessions"), ("POST", "/api/sessions"), ("GET", f"/api/sessions/{sid}"),
             ("PATCH", f"/api/sessions/{sid}"), ("DELETE", f"/api/sessions/{sid}"),
             ("POST", f"/api/sessions/{sid}/messages"), ("GET", f"/api/sessions/{sid}/events"),
             ("POST", f"/api/sessions/{sid}/approvals/x"), ("POST", f"/api/sessions/{sid}/stop"),
             ("GET", "/api/info")]
    with httpx.Client(base_url=served.base, timeout=10) as c:
        for method, path in calls:
            for headers in ({}, {"Authorization": "Bearer wrong"},
                            {"Cookie": f"token={served.token}"}):
                r = c.request(method, path, headers=headers, json={"text": "x", "title": "x"})
                assert r.status_code == 401, (method, path, headers, r.text)
                assert "token" in r.json()["error"]
        assert c.get("/").status_code == 200  # the page itself is public; it holds no data
        assert c.get("/api/info", params={"token": served.token}).status_code == 200
        r = c.post("/api/sessions", params={"token": served.token}, json={})
        assert r.status_code == 401  # a POST takes the token from a header only
    with served.client() as c:
        assert c.get(f"/api/sessions/{sid}").status_code == 200  # nothing was deleted
        assert c.get("/api/info").json()["provider"] == "anthropic"


def test_foreign_origin_and_host_are_refused(served: Served) -> None:
    port = served.base.rpartition(":")[2]
    with served.client() as c:
        r = c.post("/api/sessions", json={}, headers={"Origin": "http://evil.example"})
        assert r.status_code == 403 and "origin" in r.json()["error"]
        r = c.get("/api/sessions", headers={"Host": f"evil.example:{port}"})
        assert r.status_code == 403 and "host" in r.json()["error"]
        r = c.get("/", headers={"Host": f"rebind.attacker.test:{port}"})
        assert r.status_code == 403
        r = c.get("/api/sessions", headers={"Origin": f"http://localhost:{port}",
                                            "Host": f"localhost:{port}"})
        assert r.status_code == 200  # the page's own origin
        r = c.get("/api/sessions", headers={"Origin": served.base})
        assert r.status_code == 200
        page = c.get("/")
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]


def test_approval_round_trip_and_always_is_saved(served: Served) -> None:
    command = "echo approved-42"
    call = ToolCall("shell_command", {"command": command})
    served.fake.push(Turn(text="asking", tool_calls=[call]), Turn(text="ok"))
    sid = served.new_session()
    events = run_turn(served, sid, "run it", {"approved": "once"})
    kinds = types(events)
    assert kinds.index("tool-call") < kinds.index("approval-request") < kinds.index("approval-answer")
    result = next(e for e in events if e.type == "tool-result")
    assert "approved-42" in result.data["content"] and not result.data["is_error"]
    request = next(e for e in events if e.type == "approval-request")
    assert request.data["command"] == command and "always" in request.data["options"]

    served.fake.push(Turn(text="again", tool_calls=[call]), Turn(text="ok"))
    events = run_turn(served, sid, "again", {"approved": "always"})
    assert "approval-request" in types(events)
    served.fake.push(Turn(text="third", tool_calls=[call]), Turn(text="ok"))
    other = served.new_session()  # "always" holds in another session too: it was saved
    events = run_turn(served, other, "once more")
    assert "approval-request" not in types(events)
    assert "approved-42" in next(e for e in events if e.type == "tool-result").data["content"]
    listed = subprocess.run([AIAGENT, "permissions", "list"], cwd=served.project,
                            env=served.env, capture_output=True, text=True, timeout=60)
    assert command in listed.stdout or "echo" in listed.stdout, listed.stdout


def test_denied_approval_does_not_run(served: Served) -> None:
    served.fake.push(Turn(text="x", tool_calls=[ToolCall("shell_command",
                                                         {"command": "touch denied.txt"})]),
                     Turn(text="fine"))
    sid = served.new_session()
    events = run_turn(served, sid, "touch it", {"touch": "deny"})
    assert next(e for e in events if e.type == "tool-result").data["is_error"]
    assert not (served.project / "denied.txt").exists()
    with served.client() as c:
        r = c.post(f"/api/sessions/{sid}/approvals/nope", json={"answer": "once"})
    assert r.status_code == 404


def test_an_edit_approval_carries_its_diff(served: Served) -> None:
    call = ToolCall("write_file", {"file_path": "notes.txt", "content": "goodbye world\n"})
    served.fake.push(Turn(text="editing", tool_calls=[call]), Turn(text="left as is"))
    sid = served.new_session()
    events = run_turn(served, sid, "change notes")  # no answer given: denied
    request = next(e for e in events if e.type == "approval-request")
    assert request.data["paths"] and request.data["command"] is None
    assert "-hello world\n" in request.data["diff"] and "+goodbye world\n" in request.data["diff"]
    assert (served.project / "notes.txt").read_text() == "hello world\n"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_stop_kills_the_running_command(served: Served) -> None:
    pids = served.project / "pids.txt"
    command = f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; echo started; wait"
    served.fake.push(Turn(text="long", tool_calls=[ToolCall("shell_command", {"command": command})]))
    sid = served.new_session()
    events: list[Event] = []
    with served.client() as c, c.stream("POST", f"/api/sessions/{sid}/messages",
                                         json={"text": "run long"}) as response:
        for event in sse_events(response.iter_lines()):
            events.append(event)
            if event.type == "approval-request":
                c.post(f"/api/sessions/{sid}/approvals/{event.data['id']}", json={"answer": "once"})
            if event.type == "tool-output" and "started" in event.data["chunk"]:
                assert c.post(f"/api/sessions/{sid}/stop").json() == {"stopped": True}
    assert events[-1].type == "done" and events[-1].data["stop_reason"] == "interrupted"
    assert any(e.type == "tool-output" for e in events)  # output streamed while it ran
    started = [int(p) for p in pids.read_text().split()]
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in started if _alive(p)], "orphan processes after stop"
    served.fake.push(Turn(text="back again"))  # the session goes on after a stop
    events = run_turn(served, sid, "hello?")
    assert events[-1].data["stop_reason"] == "completed"
    assert "".join(e.data["text"] for e in events if e.type == "text") == "back again"
    with served.client() as c:
        assert c.post(f"/api/sessions/{sid}/stop").json() == {"stopped": False}


def test_bad_input_gets_json_errors_and_the_server_stays_up(served: Served) -> None:
    sid = served.new_session()
    with served.client() as c:
        for path in ("/api/sessions/doesnotexist", "/api/sessions/..%2Fetc"):
            r = c.get(path)
            assert r.status_code == 404 and "error" in r.json()
        r = c.post("/api/sessions/doesnotexist/messages", json={"text": "hi"})
        assert r.status_code == 404 and "error" in r.json()
        r = c.post(f"/api/sessions/{sid}/messages", content=b"{not json",
                   headers={"content-type": "application/json"})
        assert r.status_code == 400 and "JSON" in r.json()["error"]
        r = c.post(f"/api/sessions/{sid}/messages", json=["a list"])
        assert r.status_code == 400
        r = c.post(f"/api/sessions/{sid}/messages", json={"text": 5})
        assert r.status_code == 400
        r = c.post(f"/api/sessions/{sid}/messages", json={"text": "   "})
        assert r.status_code == 400
        r = c.post(f"/api/sessions/{sid}/approvals/x", json={"answer": "yes please"})
        assert r.status_code in (400, 404)
        try:
            r = c.post(f"/api/sessions/{sid}/messages", json={"text": "x" * (10 << 20)})
            assert r.status_code == 413 and "error" in r.json()
        except httpx.TransportError:  # the server may close before the upload ends
            pass
        r = c.get("/api/nothing-here")
        assert r.status_code == 404 and "error" in r.json()
    served.fake.push(Turn(text="still here"))
    events = run_turn(served, sid, "ok?")  # the same session works afterwards
    assert "".join(e.data["text"] for e in events if e.type == "text") == "still here"
    assert served.proc.poll() is None


def test_oversized_message_is_413_when_the_body_is_read(served: Served) -> None:
    from aiagent.frontends.web.api import MAX_BODY, MAX_IMAGES_BODY  # room for attached images

    sid = served.new_session()
    with served.client() as c:  # declared length over the limit
        r = c.post(f"/api/sessions/{sid}/messages", content=b"x" * (MAX_IMAGES_BODY + 1),
                   headers={"content-type": "application/json"})
        assert r.status_code == 413 and "error" in r.json()
        r = c.post(f"/api/sessions/{sid}/messages", json={"text": "x" * (MAX_BODY + 1)})
        assert r.status_code == 413 and "longer than" in r.json()["error"]  # the text's own cap

        def chunks():  # no declared length: counted as it arrives
            for _ in range(MAX_IMAGES_BODY // (64 << 10) + 2):
                yield b"x" * (64 << 10)
        try:
            r = c.post(f"/api/sessions/{sid}/messages", content=chunks(),
                       headers={"content-type": "application/json"})
            assert r.status_code == 413
        except httpx.TransportError:
            pass
        assert c.get(f"/api/sessions/{sid}").json()["messages"] == []


def test_sessions_rename_delete_and_the_terminal_sees_them(served: Served) -> None:
    served.fake.push(Turn(text="from the web"))
    sid = served.new_session()
    run_turn(served, sid, "web question")
    with served.client() as c:
        r = c.patch(f"/api/sessions/{sid}", json={"title": "renamed here"})
        assert r.status_code == 200 and r.json()["title"] == "renamed here"
        listed = c.get("/api/sessions").json()["sessions"]
        assert listed[0]["id"] == sid and listed[0]["title"] == "renamed here"
    # the terminal continues the conversation the page started (same SQLite sessions)
    served.fake.push(Turn(text="continued in the terminal"))
    proc = subprocess.run([AIAGENT, "--headless", "--continue", "--provider", "anthropic",
                           "--prompt", "and now?"], cwd=served.project, env=served.env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    sent = served.fake.requests[-1]["json"]["messages"]
    assert "web question" in str(sent) and "from the web" in str(sent)
    with served.client() as c:
        messages = c.get(f"/api/sessions/{sid}").json()["messages"]
        assert messages[-1]["content"][0]["text"] == "continued in the terminal"
        assert c.delete(f"/api/sessions/{sid}").status_code == 204
        assert c.get(f"/api/sessions/{sid}").status_code == 404
        assert sid not in [s["id"] for s in c.get("/api/sessions").json()["sessions"]]


def test_remote_host_needs_allow_remote(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "home")
    proc = subprocess.run([AIAGENT, "serve", "--host", "0.0.0.0"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("aiagent: error: --host 0.0.0.0") and "--allow-remote" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("host", ["localhost", "::1"])
def test_loopback_names_need_no_flag(host: str) -> None:
    from aiagent.frontends.web.guard import allowed_hosts, is_loopback

    assert is_loopback(host) and not is_loopback("192.168.1.5") and not is_loopback("example.com")
    assert "127.0.0.1:8000" in allowed_hosts(host, 8000)
    assert "evil.example:8000" not in allowed_hosts(host, 8000)
