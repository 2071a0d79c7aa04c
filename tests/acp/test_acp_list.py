"""``session/list`` against the real ``aiagent acp`` driven by the ``acp`` package's client:
sessions made through ACP are listed with their ids, folder and titles; the ``cwd``
filter; pages across the stored sessions; bad input gets invalid params and the
connection goes on; a store that cannot be opened is an internal error."""

from __future__ import annotations

import asyncio
import base64
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from acp import RequestError
from tests.acp.peer import acp_peer, isolated_env

from aiagent.frontends.acp.listing import PAGE_SIZE
from aiagent.infra.store.sessions import SessionStore
from aiagent.testing import FakeLLM, Turn

INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603


async def _error(call: object) -> RequestError:
    try:
        await call  # type: ignore[misc]
    except RequestError as exc:
        return exc
    raise AssertionError("no error")


def test_acp_sessions_are_listed_with_titles_and_filtered_by_cwd(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()

    async def main() -> None:
        with FakeLLM([Turn(text="one"), Turn(text="two")]) as fake:
            async with acp_peer(tmp_path, fake) as peer:
                init = await peer.initialize()
                assert init.agent_capabilities.session_capabilities.list is not None
                first = await peer.new_session()
                await peer.prompt(first, "\n  fix the parser\nthen the tests")
                second = await peer.new_session()
                await peer.prompt(second, "write the changelog")
                listed = await peer.conn.list_sessions()
                here = await peer.conn.list_sessions(cwd=str(peer.project))
                dotted = await peer.conn.list_sessions(cwd=f"{peer.project}/../proj/.")
                elsewhere = await peer.conn.list_sessions(cwd=str(other))
        project = str(peer.project.resolve())
        assert [(s.session_id, s.cwd, s.title) for s in listed.sessions] == [
            (second, project, "write the changelog"), (first, project, "fix the parser")]
        assert listed.next_cursor is None
        stamps = [datetime.fromisoformat(s.updated_at) for s in listed.sessions]
        assert all(t.utcoffset() == timedelta(0) for t in stamps)
        assert stamps[0] >= stamps[1]
        assert [s.session_id for s in here.sessions] == [second, first]
        assert [s.session_id for s in dotted.sessions] == [second, first]  # resolved as stored
        assert elsewhere.sessions == [] and elsewhere.next_cursor is None

    asyncio.run(main())


def _fill(tmp_path: Path, folder: Path, count: int) -> list[str]:
    """``count`` sessions of ``folder`` in the store the server will open (plus a subagent's
    and another folder's, which a listing of ``folder`` leaves out); newest first."""
    store = SessionStore.open(isolated_env(tmp_path / "home", None))
    try:
        made = []
        for n in range(count):
            info = store.create(folder, title="" if n == 3 else f"task {n}")
            store.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?",
                               (1_700_000_000 + n, info.id))
            made.append(info.id)
        store.create(folder, title="sub", parent_id=made[0], agent="general#1")
        store.create(tmp_path / "elsewhere", title="not here")
    finally:
        store.close()
    return made[::-1]


def test_pages_return_each_session_once_in_order(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    count = 2 * PAGE_SIZE + 3
    expected = _fill(tmp_path, folder, count)

    async def main() -> list[object]:
        with FakeLLM([]) as fake:
            async with acp_peer(tmp_path, fake) as peer:
                await peer.initialize()
                pages, cursor = [], None
                while True:
                    page = await peer.conn.list_sessions(cwd=str(folder), cursor=cursor)
                    pages.append(page)
                    cursor = page.next_cursor
                    if cursor is None or len(pages) > 5:
                        return pages

    pages = asyncio.run(main())
    assert [len(p.sessions) for p in pages] == [PAGE_SIZE, PAGE_SIZE, 3]  # type: ignore[attr-defined]
    seen = [s for p in pages for s in p.sessions]  # type: ignore[attr-defined]
    assert [s.session_id for s in seen] == expected
    assert {s.cwd for s in seen} == {str(folder.resolve())}
    untitled = seen[count - 1 - 3]
    assert untitled.title is None and seen[0].title == f"task {count - 1}"
    assert seen[0].updated_at == "2023-11-14T22:15:02.000Z"  # 1_700_000_000 + 102, UTC


def _tampered(offset: str) -> str:
    return base64.urlsafe_b64encode(f"aiagent-sessions:{offset}".encode()).decode()


@pytest.mark.parametrize("kwargs", [
    {"cwd": "relative/dir"},
    {"cwd": ""},
    {"cursor": "not a cursor!"},
    {"cursor": "AAAA"},
    {"cursor": _tampered("-5")},
    {"cursor": _tampered("99999999999")},
])
def test_bad_input_is_invalid_params_and_the_connection_goes_on(
        tmp_path: Path, kwargs: dict[str, str]) -> None:
    _fill(tmp_path, tmp_path / "proj", 2)

    async def main() -> None:
        with FakeLLM([]) as fake:
            async with acp_peer(tmp_path, fake) as peer:
                await peer.initialize()
                exc = await _error(peer.conn.list_sessions(**kwargs))
                assert exc.code == INVALID_PARAMS
                assert len(str(exc.data).splitlines()) == 1
                listed = await peer.conn.list_sessions(cwd=str(peer.project))
                assert len(listed.sessions) == 2

    asyncio.run(main())


def test_a_store_that_cannot_be_opened_is_an_internal_error(tmp_path: Path) -> None:
    data = tmp_path / "home" / ".local" / "share" / "aiagent"
    data.parent.mkdir(parents=True)
    data.write_text("a file where the data folder should be")

    async def main() -> None:
        with FakeLLM([]) as fake:
            async with acp_peer(tmp_path, fake) as peer:
                await peer.initialize()
                exc = await _error(peer.conn.list_sessions())
                assert exc.code == INTERNAL_ERROR
                assert "cannot open the database" in str(exc.data)
                assert len(str(exc.data).splitlines()) == 1
                data.unlink()  # fixed: the same server lists
                assert (await peer.conn.list_sessions()).sessions == []

    asyncio.run(main())
