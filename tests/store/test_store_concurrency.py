"""Many writers on one session: every message kept, each run's turn in one piece, and a
lock that never clears is an error, never a silent drop."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from aiagent.agent.core.conversation import Conversation
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.infra.store.db import StoreError
from aiagent.infra.store.sessions import SessionRecorder, SessionStore

WRITER = """
import sys
from pathlib import Path
from aiagent.agent.core.conversation import Conversation
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from aiagent.infra.store.sessions import SessionRecorder, SessionStore

path, session, name, turns = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
store = SessionStore.open(path=path)
recorder = SessionRecorder(store, session, 0)
conv = Conversation(on_append=recorder)
for t in range(turns):
    conv.append(Message.user(f"{name}:{t}:ask"))
    conv.append(Message("assistant", [ToolUseBlock(f"{name}{t}", "echo", {"n": t})]))
    conv.append(Message("user", [ToolResultBlock(f"{name}{t}", f"{name}:{t}:result")]))
    conv.append(Message("assistant", [TextBlock(f"{name}:{t}:answer")]))
store.close()
sys.exit(3 if recorder.error else 0)
"""


def _labels(store: SessionStore, session: str) -> list[str]:
    out = []
    for m in store.messages(session):
        block = m.content[0]
        if isinstance(block, TextBlock):
            out.append(block.text)
        elif isinstance(block, ToolUseBlock):
            out.append(f"call {block.id}")
        elif isinstance(block, ToolResultBlock):
            out.append(block.content)
    return out


def _assert_turns_whole(labels: list[str], names: list[str], turns: int) -> None:
    assert len(labels) == 4 * turns * len(names)
    for name in names:
        for t in range(turns):
            at = labels.index(f"{name}:{t}:ask")
            assert labels[at:at + 4] == [f"{name}:{t}:ask", f"call {name}{t}", f"{name}:{t}:result",
                                         f"{name}:{t}:answer"]
        asks = [labels.index(f"{name}:{t}:ask") for t in range(turns)]
        assert asks == sorted(asks)  # a run's turns stay in its order


def test_processes_appending_to_one_session_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    store = SessionStore.open(path=path)
    session = store.create("/w").id
    names, turns = [f"p{i}" for i in range(6)], 15
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), session, name, str(turns)])
             for name in names]
    assert [p.wait(timeout=120) for p in procs] == [0] * len(names)
    _assert_turns_whole(_labels(store, session), names, turns)


def test_threads_with_their_own_connections_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    store = SessionStore.open(path=path)
    session = store.create("/w").id
    names, turns, errors = [f"t{i}" for i in range(8)], 10, []

    def write(name: str) -> None:
        own = SessionStore.open(path=path)
        recorder = SessionRecorder(own, session, 0)
        conv = Conversation(on_append=recorder)
        for t in range(turns):
            conv.append(Message.user(f"{name}:{t}:ask"))
            conv.append(Message("assistant", [ToolUseBlock(f"{name}{t}", "echo", {})]))
            conv.append(Message("user", [ToolResultBlock(f"{name}{t}", f"{name}:{t}:result")]))
            conv.append(Message("assistant", [TextBlock(f"{name}:{t}:answer")]))
        errors.append(recorder.error)
        own.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == [None] * len(names)
    _assert_turns_whole(_labels(store, session), names, turns)


def test_a_single_writer_numbers_densely(tmp_path: Path) -> None:
    store = SessionStore.open(path=tmp_path / "aiagent.db")
    session = store.create("/w").id
    conv = Conversation(on_append=SessionRecorder(store, session, 0))
    for text in ("a", "b", "c"):
        conv.append(Message.user(text))
    assert [r["seq"] for r in store.message_rows(session)] == [0, 1, 2]


def _hold_write_lock(path: Path, seconds: float) -> threading.Thread:
    locked = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        locked.set()
        time.sleep(seconds)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert locked.wait(10)
    return thread


def test_a_lock_released_in_time_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    store = SessionStore.open(path=path, busy_ms=100)
    session = store.create("/w").id
    holder = _hold_write_lock(path, 0.25)  # longer than one busy timeout, shorter than the retries
    assert store.append_next(session, Message.user("kept")) == (0,)
    holder.join()
    assert _labels(store, session) == ["kept"]


def test_a_lock_that_never_clears_is_an_error_not_a_drop(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    store = SessionStore.open(path=path, busy_ms=50)
    session = store.create("/w").id
    recorder = SessionRecorder(store, session, 0)
    holder = _hold_write_lock(path, 2.0)
    with pytest.raises(StoreError, match=r"could not save a message: .*aiagent\.db stayed locked by "
                                         r"another process for 0\.2 s; nothing was saved$"):
        store.append_next(session, Message.user("lost?"))
    recorder(Message.user("lost?"))
    assert recorder.error is not None and "stayed locked" in recorder.error
    holder.join()
    assert store.messages(session) == []
