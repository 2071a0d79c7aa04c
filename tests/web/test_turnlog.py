"""The per-turn event log: numbering, resuming, and a loud gap when a reader fell behind."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.web.serving import sse_events, start_server

from aiagent.frontends.web.turnlog import TurnLog, parse_event_id


async def _read(log: TurnLog, after: int) -> list[bytes]:
    return [chunk async for chunk in log.follow(after)]


def test_resume_after_an_id_and_a_gap_past_the_limit() -> None:
    async def scenario() -> None:
        log = TurnLog(limit=8)
        for n in range(30):
            log.add("text", {"text": str(n)})
        log.finish()
        everything = await _read(log, 0)
        assert everything[0].startswith(b"event: gap\ndata: {\"missed_from\": 1")
        kept = [c for c in everything if c.startswith(b"id: ")]
        assert kept[-1].startswith(f"id: {log.id}-30\n".encode())
        assert len(kept) == len(log.entries) and 8 <= len(kept) <= 10
        tail = await _read(log, 28)
        assert [c.split(b"\n")[0] for c in tail] == [f"id: {log.id}-29".encode(),
                                                    f"id: {log.id}-30".encode()]
        assert await _read(log, 30) == []

    asyncio.run(scenario())


def test_a_live_reader_gets_events_as_they_come() -> None:
    async def scenario() -> None:
        log = TurnLog()
        reader = asyncio.ensure_future(_read(log, 0))
        for _ in range(3):
            await asyncio.sleep(0.01)
            log.add("text", {"text": "\u2028 and \ud800"})  # odd text stays one SSE line
        log.finish()
        chunks = await asyncio.wait_for(reader, 5)
        assert len(chunks) == 3 and all(c.count(b"\n") == 4 for c in chunks)

    asyncio.run(scenario())


def test_event_ids() -> None:
    assert parse_event_id("abc123-7") == ("abc123", 7)
    assert parse_event_id(" abc-12 ") == ("abc", 12)
    for bad in (None, "", "7", "abc-", "abc-x", "-3"):
        assert parse_event_id(bad) is None


def test_without_an_api_key_the_page_is_told_and_the_server_stays_up(tmp_path: Path) -> None:
    for served in start_server(tmp_path, key=False):
        sid = served.new_session()
        with served.client() as c:
            response = c.post(f"/api/sessions/{sid}/messages", json={"text": "hi"})
            events = list(sse_events(iter(response.text.split("\n"))))
            assert [e.type for e in events] == ["turn-start", "error", "done"]
            assert "no API key" in events[1].data["message"]
            assert c.get("/api/sessions").status_code == 200
        assert served.proc.poll() is None
