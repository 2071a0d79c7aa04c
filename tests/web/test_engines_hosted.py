"""The page's other engines: a real ``aiagent serve`` on loopback hosting the real
``aiagent acp`` (against the same FakeLLM) as ``[web.engines.inner]``; a crashing and a
mute engine; an untrusted project that tries to define an engine command."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.web.serving import (
    AIAGENT,
    Served,
    isolated_env,
    processes_with,
    run_turn,
    serve,
    sse_events,
    start_server,
    types,
)

from aiagent.testing import FakeLLM, ToolCall, Turn

USER_CONFIG = f"""
[web.engines.inner]
command = "{AIAGENT}"
args = ["acp", "--provider", "anthropic"]
keep_env = ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]
skills_engine = "claude"

[web.engines.broken]
command = "sh"
args = ["-c", "echo engine-exploded >&2; exit 3"]

[web.engines.mute]
command = "sh"
args = ["-c", "echo not-json-rpc; exec sleep 600"]
startup_timeout = 2
"""
# an engine that opens a session, prints garbage, streams a little, then never answers
# the prompt, reads nothing more (session/cancel, end of input) and ignores SIGTERM
STUCK = r"""
import json, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def say(message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if method == "initialize":
        say({"id": message["id"], "result": {"protocolVersion": 1}})
    elif method == "session/new":
        say({"id": message["id"], "result": {"sessionId": "s1"}})
    elif method == "session/prompt":
        sys.stdout.write("garbage {not json\n[1, 2]\n"); sys.stdout.flush()
        say({"method": "session/update", "params": {"sessionId": "s1", "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "thinking"}}}})
        say({"method": "session/update", "params": {"sessionId": "s1", "update": "bogus"}})
        while True:
            time.sleep(1)
"""
PROJECT_CONFIG = """
[web.engines.evil]
command = "sh"
args = ["-c", "touch pwned.txt"]
"""
SKILL = """---
name: greeter
description: Greets people warmly when asked to say hello.
---
Say hello.
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("engines")
    project = root / "proj"
    (project / ".agent" / "skills" / "greeter").mkdir(parents=True)
    (project / ".agent" / "skills" / "greeter" / "SKILL.md").write_text(SKILL)
    (project / ".agent" / "config.toml").write_text(PROJECT_CONFIG)  # untrusted folder
    home = root / "home"
    (home / ".config" / "aiagent").mkdir(parents=True)
    (root / "stuck.py").write_text(STUCK)
    stuck = f'\n[web.engines.stuck]\ncommand = "{sys.executable}"\nargs = ["{root / "stuck.py"}"]\n'
    (home / ".config" / "aiagent" / "config.toml").write_text(USER_CONFIG + stuck)
    with FakeLLM() as fake:
        env = isolated_env(home)
        env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-test-123456")
        yield from serve(project, env, fake)


def new_session(served: Served, engine: str) -> httpx.Response:
    with served.client() as c:
        return c.post("/api/sessions", json={"engine": engine})


def test_engines_listed_and_untrusted_project_engine_refused(served: Served) -> None:
    with served.client() as c:
        engines = c.get("/api/info").json()["engines"]
    assert engines == ["aiagent", "broken", "inner", "mute", "stuck"]  # no "evil": the project is untrusted
    refused = new_session(served, "evil")
    assert refused.status_code == 400 and "evil" in refused.json()["error"]
    assert not (served.project / "pwned.txt").exists()
    own = new_session(served, "aiagent")
    assert own.status_code == 201 and own.json()["engine"] == "aiagent"


def test_hosted_engine_streams_asks_and_stops(served: Served) -> None:
    created = new_session(served, "inner")
    assert created.status_code == 201, created.text
    sid = created.json()["id"]
    assert created.json()["engine"] == "inner"

    served.fake.push(Turn(text="Hello from the hosted engine.", text_chunks=3))
    events = run_turn(served, sid, "say hello")
    assert events[0].type == "turn-start" and events[-1].type == "done", types(events)
    assert "".join(e.data["text"] for e in events if e.type == "text") == "Hello from the hosted engine."
    assert events[-1].data["stop_reason"] == "completed"
    assert "usage" in types(events)
    exported = served.project / ".claude" / "skills" / "greeter" / "SKILL.md"
    assert exported.is_file(), "the project's skills were not placed for the engine"
    assert processes_with(f"{AIAGENT} acp", served.project), "the engine runs in the project"

    call = ToolCall("shell_command", {"command": "echo hosted-$((6*7))"})
    served.fake.push(Turn(text="Running.", tool_calls=[call]), Turn(text="It printed 42."))
    events = run_turn(served, sid, "run it", {"hosted-": "once"})
    kinds = types(events)
    assert kinds.index("tool-call") < kinds.index("approval-request") < kinds.index("approval-answer")
    request = next(e for e in events if e.type == "approval-request")
    assert "echo hosted-" in request.data["what"] and "once" in request.data["options"]
    result = next(e for e in events if e.type == "tool-result")
    assert "hosted-42" in result.data["content"] and not result.data["is_error"]
    assert events[-1].type == "done" and events[-1].data["stop_reason"] == "completed"

    marker = "sleep 37.5"
    long = ToolCall("shell_command", {"command": f"echo started-now; {marker}"})
    served.fake.push(Turn(text="Waiting.", tool_calls=[long]))  # stopped before a second request
    started = time.monotonic()
    events = run_turn(served, sid, "wait", {"started-now": "once"}, stop_on="started-now")
    assert events[-1].type == "done" and events[-1].data["stop_reason"] == "interrupted", types(events)
    assert time.monotonic() - started < 30
    deadline = time.monotonic() + 20
    while processes_with(marker, served.project) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not processes_with(marker, served.project), "the stopped command is still running"
    engine = f"{AIAGENT} acp"  # other tests run `aiagent acp` too: only this project's counts
    while processes_with(engine, served.project) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not processes_with(engine, served.project), "the engine outlived its stopped session"

    with served.client() as c:
        history = c.get(f"/api/sessions/{sid}").json()
        listed = [s["id"] for s in c.get("/api/sessions").json()["sessions"]]
    assert sid in listed
    stored = [(m["role"], m["content"][0]["text"]) for m in history["messages"]]
    assert stored[:4] == [("user", "say hello"), ("assistant", "Hello from the hosted engine."),
                          ("user", "run it"), ("assistant", "Running.It printed 42.")]
    assert stored[4] == ("user", "wait")
    assert served.fake.remaining == 0


def test_crashing_and_mute_engines_are_errors_and_the_server_stays(served: Served) -> None:
    sid = new_session(served, "broken").json()["id"]
    events = run_turn(served, sid, "hello?")
    assert types(events)[-2:] == ["error", "done"], types(events)
    assert "engine-exploded" in events[-2].data["message"] or "status 3" in events[-2].data["message"]

    sid = new_session(served, "mute").json()["id"]
    events = run_turn(served, sid, "hello?")
    assert types(events)[-2:] == ["error", "done"], types(events)
    assert "mute" in events[-2].data["message"]
    assert not processes_with("sleep 600", served.project), "the mute engine was left running"

    served.fake.push(Turn(text="still here"))  # our own engine beside the broken ones
    sid = new_session(served, "aiagent").json()["id"]
    events = run_turn(served, sid, "are you there")
    assert "".join(e.data["text"] for e in events if e.type == "text") == "still here"
    assert served.proc.poll() is None


def test_an_engine_that_ignores_cancel_is_killed_and_the_turn_ends(served: Served) -> None:
    sid = new_session(served, "stuck").json()["id"]
    started = time.monotonic()
    events = run_turn(served, sid, "hello?", stop_on="thinking")  # stop once it streams
    assert events[-1].type == "done" and events[-1].data["stop_reason"] == "interrupted", types(events)
    assert [e.data["text"] for e in events if e.type == "text"] == ["thinking"]  # garbage skipped
    assert time.monotonic() - started < 60
    deadline = time.monotonic() + 20
    stuck = str(served.project.parent / "stuck.py")  # this module's engine, not another test's
    while processes_with(stuck) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not processes_with(stuck), "the stuck engine was left running"
    assert served.proc.poll() is None


def test_stopping_the_server_kills_a_running_engine(tmp_path: Path) -> None:
    (tmp_path / "stuck.py").write_text(STUCK)
    config = f'[web.engines.stuck]\ncommand = "{sys.executable}"\nargs = ["{tmp_path / "stuck.py"}"]\n'
    marker = str(tmp_path / "stuck.py")
    for served in start_server(tmp_path, user_config=config):
        sid = new_session(served, "stuck").json()["id"]
        with httpx.Client(base_url=served.base, headers=served.headers, timeout=60) as c, \
                c.stream("POST", f"/api/sessions/{sid}/messages", json={"text": "hi"}) as response:
            for event in sse_events(response.iter_lines()):
                if event.type == "text":
                    break  # the engine is mid-turn
        assert processes_with(marker), "the engine is not running"
        served.proc.terminate()
        served.proc.wait(20)  # uvicorn ends by re-raising SIGTERM after its shutdown
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not processes_with(marker), "the engine outlived the server"
