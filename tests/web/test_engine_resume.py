"""A hosted engine's conversation outlives its process: a real ``aiagent serve`` on loopback
hosting the real ``aiagent acp`` (against FakeLLM) is killed mid-session and restarted, and
the model still sees the earlier turns; engines that cannot or will not load a session (a
small ACP engine in ``fake_acp_engine.py``) get a new one with a one-line notice."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.web.serving import AIAGENT, Event, Served, run_turn, start_server, types

from aiagent.testing import FakeLLM, ToolCall, Turn

FAKE_ENGINE = Path(__file__).with_name("fake_acp_engine.py")
INNER = f"""
[web.engines.inner]
command = "{AIAGENT}"
args = ["acp", "--provider", "anthropic"]
keep_env = ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]
"""
MODES = ("noload", "loaderr", "garbage", "endless", "intid", "longid")


def fake_engines() -> str:
    return "".join(f'\n[web.engines.{mode}]\ncommand = "{sys.executable}"\n'
                   f'args = ["{FAKE_ENGINE}", "{mode}"]\nstartup_timeout = 20\n' for mode in MODES)


def new_session(served: Served, engine: str) -> str:
    with served.client() as c:
        response = c.post("/api/sessions", json={"engine": engine})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def history(served: Served, sid: str) -> list[tuple[str, str]]:
    with served.client() as c:
        data = c.get(f"/api/sessions/{sid}").json()
    return [(m["role"], m["content"][0]["text"]) for m in data["messages"]]


def said(events: list[Event]) -> str:
    return "".join(e.data["text"] for e in events if e.type == "text")


def notices(events: list[Event]) -> list[str]:
    return [e.data["message"] for e in events if e.type == "notice"]


def engines_of(served: Served, marker: str) -> list[int]:
    """The server's descendant processes whose command line holds ``marker`` (commands are
    started under the runner's reaper, not as direct children)."""
    parents: dict[int, int] = {}
    lines: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            lines[int(stat.parent.name)] = (stat.parent / "cmdline").read_bytes() \
                .replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue

    def under_server(pid: int) -> bool:
        for _ in range(20):
            pid = parents.get(pid, 0)
            if pid == served.proc.pid:
                return True
            if pid <= 1:
                return False
        return False

    return [pid for pid, line in lines.items() if marker in line and under_server(pid)]


def kill_engine(served: Served, marker: str, others: frozenset[int] = frozenset()) -> None:
    """SIGKILL the running engine (a crash; ``others``: engines of other sessions) and wait
    until it is gone."""
    pids = set(engines_of(served, marker)) - others
    assert len(pids) == 1, f"expected one running engine {marker!r}, found {pids}"
    os.kill(pids.pop(), signal.SIGKILL)
    assert engines_gone(served, marker, others), "the killed engine is still there"


def engines_gone(served: Served, marker: str, others: frozenset[int] = frozenset()) -> bool:
    """Whether every engine ``marker`` but ``others`` is gone within 20 s."""
    deadline = time.monotonic() + 20
    while set(engines_of(served, marker)) - others and time.monotonic() < deadline:
        time.sleep(0.1)
    return not set(engines_of(served, marker)) - others


def sent_to_model(fake: FakeLLM) -> str:
    """The last request the model got, as text."""
    return json.dumps(fake.requests[-1]["json"]["messages"])


def completed(events: list[Event]) -> None:
    assert events[-1].type == "done" and events[-1].data["stop_reason"] == "completed", \
        [(e.type, e.data) for e in events[-3:]]


# ---- the legitimate resume: real aiagent acp, crash and server restart ------------------


def test_hosted_conversation_survives_engine_crash_and_server_restart(tmp_path: Path) -> None:
    for served in start_server(tmp_path, user_config=INNER):
        sid = new_session(served, "inner")
        served.fake.push(Turn(text="Hello Ada, noted."))
        completed(first := run_turn(served, sid, "my name is Ada"))
        assert notices(first) == [], "a first turn has nothing to say about resuming"

        kill_engine(served, f"{AIAGENT} acp")
        served.fake.push(Turn(text="Your name is Ada."))
        events = run_turn(served, sid, "what is my name?")
        completed(events)
        assert notices(events) == [] and said(events) == "Your name is Ada.", types(events)
        sent = sent_to_model(served.fake)
        assert "my name is Ada" in sent and "Hello Ada, noted." in sent, "the engine lost the earlier turns"
        assert "tool-call" not in types(events), "the replayed history reached the page"
        assert history(served, sid) == [("user", "my name is Ada"), ("assistant", "Hello Ada, noted."),
                                        ("user", "what is my name?"), ("assistant", "Your name is Ada.")]

    for served in start_server(tmp_path, user_config=INNER):  # the same home and folder
        served.fake.push(Turn(text="Still Ada."))
        events = run_turn(served, sid, "and now?")
        completed(events)
        assert notices(events) == [] and said(events) == "Still Ada."
        sent = sent_to_model(served.fake)
        for earlier in ("my name is Ada", "Hello Ada, noted.", "what is my name?", "Your name is Ada."):
            assert earlier in sent, f"after the restart the model does not see {earlier!r}"
        assert len(history(served, sid)) == 6  # nothing replayed into our transcript


# ---- hostile and broken engines, each beside a legitimate one ---------------------------


@pytest.fixture(scope="module")
def fakes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from start_server(tmp_path_factory.mktemp("resume"), user_config=fake_engines())


def converse_then_crash(served: Served, engine: str) -> tuple[str, str, frozenset[int]]:
    """A session on ``engine`` with one turn, then the engine killed: (session, the engine's
    session id, the engine processes of other sessions)."""
    others = frozenset(engines_of(served, f"{FAKE_ENGINE} {engine}"))
    sid = new_session(served, engine)
    events = run_turn(served, sid, "first")
    completed(events)
    answer = said(events)
    assert f"{engine} heard: first (loads: 0)" in answer, answer
    kill_engine(served, f"{FAKE_ENGINE} {engine}", others)
    return sid, answer.split("]")[0].lstrip("["), others


def test_an_engine_that_loads_continues_its_session_and_its_replay_is_not_shown(fakes: Served) -> None:
    sid, remote, _ = converse_then_crash(fakes, "garbage")
    events = run_turn(fakes, sid, "second")
    completed(events)
    assert notices(events) == []
    assert said(events) == f"[{remote}] garbage heard: second (loads: 1)"  # the same engine session
    assert "REPLAYED" not in json.dumps([e.data for e in events]), "the replay reached the page"
    assert [t for _, t in history(fakes, sid)] == [
        "first", f"[{remote}] garbage heard: first (loads: 0)", "second", said(events)]


def resumed_with_notice(served: Served, mode: str) -> tuple[str, str, list[Event], str]:
    """A conversation with engine ``mode`` that then crashes, and the turn after it, which
    carries one notice: the session id, the old engine session id, the events, the notice."""
    sid, remote, _ = converse_then_crash(served, mode)
    events = run_turn(served, sid, "second")
    completed(events)
    [note] = notices(events)
    return sid, remote, events, note


def test_an_engine_without_load_says_so_and_starts_a_new_session(fakes: Served) -> None:
    sid, remote, events, note = resumed_with_notice(fakes, "noload")
    assert "cannot load sessions" in note and "new engine session" in note
    assert types(events).index("notice") < types(events).index("text")
    answer = said(events)
    assert "noload heard: second (loads: 0)" in answer and remote not in answer
    assert [r for r, _ in history(fakes, sid)] == ["user", "assistant"] * 2  # the transcript stays


def test_an_engine_whose_load_fails_gets_a_new_session(fakes: Served) -> None:
    sid, remote, events, note = resumed_with_notice(fakes, "loaderr")
    assert "could not load its session" in note and "session store is gone" in note
    answer = said(events)
    assert "loaderr heard: second (loads: 1)" in answer and remote not in answer  # same process
    events = run_turn(fakes, sid, "third")  # the new engine session is the one kept now
    completed(events)
    assert notices(events) == [] and "loaderr heard: third" in said(events)


def test_an_endless_replay_is_cut_off_and_a_new_engine_starts(fakes: Served) -> None:
    sid, remote, _ = converse_then_crash(fakes, "endless")
    started = time.monotonic()
    events = run_turn(fakes, sid, "second")
    completed(events)
    assert time.monotonic() - started < 60
    [note] = notices(events)
    assert "replayed more than" in note
    answer = said(events)
    assert "endless heard: second (loads: 0)" in answer and remote not in answer  # a new process
    assert "REPLAYED" not in json.dumps([e.data for e in events]), [e for e in events if "REPLAYED" in json.dumps(e.data)][:3]
    assert len(set(engines_of(fakes, f"{FAKE_ENGINE} endless"))) == 1, "the runaway engine was left running"
    assert fakes.proc.poll() is None


@pytest.mark.parametrize("mode", ["intid", "longid"])
def test_an_unusable_engine_session_id_is_refused(fakes: Served, mode: str) -> None:
    sid = new_session(fakes, mode)
    events = run_turn(fakes, sid, "hello?")
    assert types(events)[-2:] == ["error", "done"], types(events)
    assert "usable sessionId" in events[-2].data["message"] and len(events[-2].data["message"]) < 400
    assert engines_gone(fakes, f"{FAKE_ENGINE} {mode}"), "the refused engine was left running"
    sid, _, _ = converse_then_crash(fakes, "garbage")  # beside it, a good engine still resumes
    completed(events := run_turn(fakes, sid, "second"))
    assert "(loads: 1)" in said(events)


def test_a_stored_id_of_another_engine_or_unusable_is_not_sent(fakes: Served) -> None:
    database = Path(fakes.env["XDG_DATA_HOME"]) / "aiagent" / "aiagent.db"
    for engine, remote in (("noload", None), ("garbage", "y" * 5000), ("garbage", "bad\nid")):
        sid, old, others = converse_then_crash(fakes, "garbage")
        with sqlite3.connect(database) as db:  # another program wrote the link
            db.execute("UPDATE engine_sessions SET engine = ?, remote_id = COALESCE(?, remote_id) "
                       "WHERE session_id = ?", (engine, remote, sid))
        events = run_turn(fakes, sid, "second")
        completed(events)
        [note] = notices(events)
        assert ("belongs to engine 'noload'" if remote is None else "unusable") in note, note
        answer = said(events)
        assert "(loads: 0)" in answer and old not in answer, "the stored id was sent to the engine"
        kill_engine(fakes, f"{FAKE_ENGINE} garbage", others)  # the new link is this engine's own again
        completed(events := run_turn(fakes, sid, "third"))
        assert notices(events) == [] and "(loads: 1)" in said(events)
        kill_engine(fakes, f"{FAKE_ENGINE} garbage", others)


def test_hosted_stream_shows_diffs_and_every_approval_answer(tmp_path: Path) -> None:
    """Item 2: tool calls with their diffs, approvals once/always/deny, usage."""
    for served in start_server(tmp_path, user_config=INNER):
        sid = new_session(served, "inner")
        edit = ToolCall("write_file", {"file_path": "notes.txt", "content": "hello there\n"})
        served.fake.push(Turn(text="Editing.", tool_calls=[edit]), Turn(text="Edited."))
        events = run_turn(served, sid, "edit it", {"notes.txt": "once"})
        completed(events)
        diff = next((e for e in events if e.type == "file-diff"), None)
        assert diff is not None, [(e.type, e.data) for e in events]
        assert "-hello world" in diff.data["diff"] and "+hello there" in diff.data["diff"]
        assert (served.project / "notes.txt").read_text() == "hello there\n"
        assert "usage" in types(events)

        denied = ToolCall("shell_command", {"command": "echo denied-run > denied.txt"})
        served.fake.push(Turn(text="Trying.", tool_calls=[denied]), Turn(text="It was denied."))
        events = run_turn(served, sid, "try it", {"denied-run": "deny"})
        completed(events)
        assert next(e for e in events if e.type == "approval-answer").data["answer"] == "deny"
        assert next(e for e in events if e.type == "tool-result").data["is_error"]
        assert not (served.project / "denied.txt").exists()

        for n in (1, 2):  # "always" is saved by the hosted engine: the second run asks nothing
            call = ToolCall("shell_command", {"command": f"touch always-{n}.txt"})
            served.fake.push(Turn(text="Again.", tool_calls=[call]), Turn(text="Done."))
            events = run_turn(served, sid, f"run {n}", {"always-": "always"})
            completed(events)
            asked = [e for e in events if e.type == "approval-request"]
            assert len(asked) == (1 if n == 1 else 0), types(events)
            assert not next(e for e in events if e.type == "tool-result").data["is_error"]
            assert (served.project / f"always-{n}.txt").exists()
