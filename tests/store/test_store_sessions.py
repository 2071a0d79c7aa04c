from __future__ import annotations

from pathlib import Path

import pytest

from aiagent.agent.core.conversation import Conversation
from aiagent.contracts.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from aiagent.infra.store.sessions import SessionNotFound, SessionRecorder, SessionStore, repair_tail


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore.open(path=tmp_path / "db" / "aiagent.db")


def _assistant() -> Message:
    return Message("assistant", [
        TextBlock("  Let me look.\n\n<shell>ls</shell>  "),
        ToolUseBlock("t1", "read_file", {"z": 1, "a": [1.5, "é"]}, raw_input='{"z":1, "a":[1.5,"é"]}'),
    ])


def test_messages_round_trip_verbatim(store: SessionStore) -> None:
    s = store.create("/w", provider="anthropic", model="m", title="t")
    msgs = [Message.user("hi"), _assistant(), Message("user", [ToolResultBlock("t1", "out", True)])]
    for i, m in enumerate(msgs):
        store.append(s.id, i, m)
    back = store.messages(s.id)
    assert back == msgs
    assert list(back[1].tool_uses[0].input) == ["z", "a"]  # key order kept


def test_recorder_writes_each_message_with_usage(store: SessionStore) -> None:
    s = store.create("/w")
    total = Usage()
    rec = SessionRecorder(store, s.id, 0, model="m", usage_total=lambda: total)
    conv = Conversation(on_append=rec)
    conv.append(Message.user("hi"))
    total = Usage(100, 20)
    conv.append(_assistant())
    total = Usage(250, 30, 7)
    conv.append(Message("assistant", [TextBlock("done")]))
    rows = store.message_rows(s.id)
    assert [r["seq"] for r in rows] == [0, 1, 2]
    assert (rows[1]["input_tokens"], rows[1]["output_tokens"]) == (100, 20)
    assert (rows[2]["input_tokens"], rows[2]["output_tokens"], rows[2]["cache_read_tokens"]) == (150, 10, 7)
    assert rows[1]["model"] == "m"


def test_latest_list_prefix_and_delete(store: SessionStore, tmp_path: Path) -> None:
    a = store.create("/w1", title="a")
    store.create("/w1", title="b")
    store.create("/w2", title="c")
    store.append(a.id, 0, Message.user("x"))  # a becomes the most recently updated
    assert store.latest("/w1").id == a.id
    assert [s.title for s in store.list("/w1")] == ["a", "b"]
    assert len(store.list()) == 3
    assert store.get(a.id[:6]).id == a.id
    folder = store.folder(a.id)
    (folder / "spill.txt").write_text("x")
    store.delete(a.id)
    assert not folder.exists()
    with pytest.raises(SessionNotFound):
        store.get(a.id)
    assert store.messages(a.id) == []


def test_fork_copies_messages_and_compaction(store: SessionStore) -> None:
    s = store.create("/w", title="orig")
    store.append(s.id, 0, Message.user("hi"))
    store.save_compaction(s.id, {"upto": 1, "summary": "x"})
    f = store.fork(s.id)
    assert f.parent_id == s.id and f.id != s.id and f.message_count == 1
    assert store.messages(f.id) == store.messages(s.id)
    assert store.latest_compaction(f.id) == {"upto": 1, "summary": "x"}
    store.append(f.id, 1, Message.user("only in fork"))
    assert len(store.messages(s.id)) == 1


def test_repair_tail_closes_unanswered_tool_calls() -> None:
    assert repair_tail([Message.user("hi")]) is None
    fix = repair_tail([Message.user("hi"), _assistant()])
    assert fix is not None and fix.role == "user"
    assert [b.tool_use_id for b in fix.content] == ["t1"]  # type: ignore[union-attr]


def test_two_connections_see_each_other(tmp_path: Path) -> None:
    path = tmp_path / "aiagent.db"
    one, two = SessionStore.open(path=path), SessionStore.open(path=path)
    s = one.create("/w")
    one.append(s.id, 0, Message.user("hi"))
    assert two.messages(s.id) == [Message.user("hi")]


def test_list_pages_with_an_offset(store: SessionStore) -> None:
    made = [store.create("/w", title=str(n)).id for n in range(5)]
    for n, sid in enumerate(made):
        store.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (1000 + n, sid))
    newest = made[::-1]
    assert [s.id for s in store.list("/w", limit=2)] == newest[:2]
    assert [s.id for s in store.list("/w", limit=2, offset=2)] == newest[2:4]
    assert [s.id for s in store.list("/w", limit=2, offset=4)] == newest[4:]
    assert store.list("/w", limit=2, offset=9) == []
