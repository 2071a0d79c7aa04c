"""Plans over ACP: the model calls update_plan, the real ``aiagent acp`` sends ``plan``
session updates (no permission asked), a bad plan is a failed call with no update, and
``session/load`` in a new process shows the plans again, ending with the last one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.acp.peer import Recorder, acp_peer

from aiagent.testing import FakeLLM, ToolCall, Turn

FIRST = {"explanation": "Two steps.", "plan": [
    {"step": "Read notes.txt", "status": "in_progress"}, {"step": "Summarise it", "status": "pending"}]}
SECOND = {"plan": [
    {"step": "Read notes.txt", "status": "completed"}, {"step": "Summarise it", "status": "in_progress"}]}
BAD = {"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}


def entries(update: Any) -> list[tuple[str, str, str]]:
    return [(e.content, e.status, e.priority) for e in update.entries]


def plan_updates(client: Recorder) -> list[Any]:
    return [u for _, u in client.updates if u.session_update == "plan"]


def test_plans_stream_as_plan_updates_and_come_back_on_load(tmp_path: Path) -> None:
    script = [
        Turn(text="Planning.", tool_calls=[ToolCall("update_plan", FIRST)]),
        Turn(text="Oops.", tool_calls=[ToolCall("update_plan", BAD)]),
        Turn(text="Next.", tool_calls=[ToolCall("update_plan", SECOND)]),
        Turn(text="Summary: hello."),
        Turn(text="Still here."),
    ]

    async def first(fake: FakeLLM) -> str:
        client = Recorder(answer="never")  # a permission request would hang the turn
        async with acp_peer(tmp_path, fake, client) as peer:
            await peer.initialize()
            sid = await peer.new_session()
            response = await peer.prompt(sid, "plan and do it")
        assert response.stop_reason == "end_turn" and client.permissions == []
        plans = plan_updates(client)
        assert [entries(p) for p in plans] == [
            [("Read notes.txt", "in_progress", "medium"), ("Summarise it", "pending", "medium")],
            [("Read notes.txt", "completed", "medium"), ("Summarise it", "in_progress", "medium")]]
        calls = [u for _, u in client.updates if u.session_update == "tool_call"]
        assert [c.kind for c in calls] == ["read", "read", "read"]
        results = [u for _, u in client.updates if u.session_update == "tool_call_update"]
        assert [r.status for r in results] == ["completed", "failed", "completed"]
        assert "at most one may be" in results[1].raw_output
        # each plan update sits between its call's start and its result
        order = [(u.session_update, getattr(u, "tool_call_id", "")) for _, u in client.updates]
        first_plan = order.index(("plan", ""))
        assert order[first_plan - 1] == ("tool_call", calls[0].tool_call_id)
        assert order[first_plan + 1] == ("tool_call_update", calls[0].tool_call_id)
        return sid

    async def load(fake: FakeLLM, sid: str) -> Recorder:
        client = Recorder()
        async with acp_peer(tmp_path, fake, client) as peer:
            await peer.initialize()
            await peer.conn.load_session(cwd=str(peer.project), session_id=sid, mcp_servers=[])
            replayed = list(client.updates)
            assert (await peer.prompt(sid, "and now?")).stop_reason == "end_turn"
        client.updates[:] = replayed
        return client

    with FakeLLM(script) as fake:
        sid = asyncio.run(first(fake))
        client = asyncio.run(load(fake, sid))
    plans = plan_updates(client)
    assert len(plans) == 2  # the refused plan is not replayed
    assert entries(plans[-1]) == [("Read notes.txt", "completed", "medium"),
                                  ("Summarise it", "in_progress", "medium")]
    assert client.updates[-1][1].session_update == "agent_message_chunk"  # history in order
    assert "Summary: hello." in client.text()
