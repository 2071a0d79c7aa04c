"""The real ``aiagent acp`` driven by the ``acp`` package's client side against FakeLLM:
a text reply, tool calls with permissions (once / always persisted / reject), streamed
updates in order, cancel mid-command, session/load, and files read through the editor."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from acp import RequestError
from tests.acp.peer import AIAGENT, Recorder, acp_peer, isolated_env, project_dir, survivors

from aiagent.testing import FakeLLM, ToolCall, Turn


def _updates_for(client: Recorder, call_id: str) -> list[object]:
    return [u for _, u in client.updates if getattr(u, "tool_call_id", None) == call_id]


def test_text_reply_streams_then_ends_the_turn(tmp_path: Path) -> None:
    async def main() -> None:
        with FakeLLM([Turn(text="Hello from the agent.")]) as fake:
            async with acp_peer(tmp_path, fake) as peer:
                init = await peer.initialize()
                assert init.agent_capabilities.load_session is True
                assert init.agent_info.name == "aiagent"
                sid = await peer.new_session()
                response = await peer.prompt(sid, "say hello")
        assert response.stop_reason == "end_turn"
        assert response.usage.input_tokens > 0
        assert peer.client.text() == "Hello from the agent."
        kinds = peer.client.kinds()
        assert kinds[0] == "agent_message_chunk" and "usage_update" in kinds
        assert {s for s, _ in peer.client.updates} == {sid}

    asyncio.run(main())


def test_tool_calls_permissions_diffs_and_order(tmp_path: Path) -> None:
    project = project_dir(tmp_path, {"notes.txt": "hello world\n"})
    notes = project / "notes.txt"
    edit = {"file_path": str(notes), "old_string": "hello", "new_string": "goodbye"}
    edit2 = {"file_path": str(notes), "old_string": "goodbye", "new_string": "farewell"}
    script = [
        Turn(text="Running.", tool_calls=[ToolCall("shell_command", {"command": "echo out-$((6*7))"})]),
        Turn(text="Editing.", tool_calls=[ToolCall("edit", edit)]),
        Turn(text="All done."),
        Turn(text="Again.", tool_calls=[ToolCall("edit", edit2)]),
        Turn(text="Edited again."),
        Turn(text="Trying.", tool_calls=[ToolCall("shell_command", {"command": "touch denied.txt"})]),
        Turn(text="It was refused."),
    ]

    async def main() -> None:
        client = Recorder(answer="once")
        with FakeLLM(script) as fake:
            async with acp_peer(tmp_path, fake, client, project=project) as peer:
                await peer.initialize()
                sid = await peer.new_session()
                first = asyncio.create_task(peer.prompt(sid, "run and edit"))
                await client.wait_for(lambda: len(client.permissions) == 1)
                client.answer = "always"  # the edit's permission
                assert (await first).stop_reason == "end_turn"
                assert len(client.permissions) == 2
                assert notes.read_text() == "goodbye world\n"
                # allowed always: the second edit of the file is not asked
                assert (await peer.prompt(sid, "edit again")).stop_reason == "end_turn"
                assert len(client.permissions) == 2
                assert notes.read_text() == "farewell world\n"
                client.answer = "deny"
                assert (await peer.prompt(sid, "touch it")).stop_reason == "end_turn"
                assert len(client.permissions) == 3
        assert not (project / "denied.txt").exists()
        shell_perm, edit_perm, denied_perm = client.permissions
        assert shell_perm.kind == "execute" and shell_perm.title == "echo out-$((6*7))"
        assert edit_perm.kind == "edit" and [loc.path for loc in edit_perm.locations] == [str(notes)]
        calls = [u for _, u in client.updates if u.session_update == "tool_call"]
        assert [c.kind for c in calls] == ["execute", "edit", "edit", "execute"]
        shell, edited = calls[0], calls[1]
        updates = _updates_for(client, shell.tool_call_id)
        assert updates[0] is shell and updates[-1].status == "completed"
        assert any(u.status == "in_progress" and "out-42" in u.content[0].content.text
                   for u in updates[1:-1])  # output streamed before the result
        updates = _updates_for(client, edited.tool_call_id)
        diff = updates[-1].content[0]
        assert updates[-1].status == "completed" and diff.type == "diff"
        assert (diff.path, diff.old_text, diff.new_text) == (str(notes), "hello world\n", "goodbye world\n")
        assert _updates_for(client, calls[3].tool_call_id)[-1].status == "failed"
        _assert_between_texts(client, shell.tool_call_id)
        assert "Running." in client.text() and client.text().endswith("It was refused.")

    asyncio.run(main())


def _assert_between_texts(client: Recorder, tool_call_id: str) -> None:
    """Order: the call's updates sit between the text before it and the text after it."""
    kinds = [(u.session_update, getattr(u, "tool_call_id", "")) for _, u in client.updates]
    start = kinds.index(("tool_call", tool_call_id))
    end = max(i for i, k in enumerate(kinds) if k[1] == tool_call_id)
    assert kinds[start - 1][0] in ("agent_message_chunk", "usage_update")
    assert kinds[end + 1][0] in ("agent_message_chunk", "usage_update")


def test_cancel_mid_command_kills_it_and_the_session_goes_on(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    pids = project / "pids.txt"
    command = f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; echo started; wait"
    script = [Turn(text="long", tool_calls=[ToolCall("shell_command", {"command": command})]),
              Turn(text="back again")]

    async def main() -> None:
        client = Recorder(answer="once")
        with FakeLLM(script) as fake:
            async with acp_peer(tmp_path, fake, client, project=project) as peer:
                await peer.initialize()
                sid = await peer.new_session()
                turn = asyncio.create_task(peer.prompt(sid, "run long"))
                await client.wait_for(lambda: any(
                    u.session_update == "tool_call_update" and u.content
                    and "started" in u.content[0].content.text for _, u in client.updates))
                await peer.conn.cancel(session_id=sid)
                assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
                started = [int(p) for p in pids.read_text().split()]
                assert not await asyncio.to_thread(survivors, started), "orphan processes after cancel"
                client.updates.clear()
                assert (await peer.prompt(sid, "hello?")).stop_reason == "end_turn"
                assert client.text() == "back again"

    asyncio.run(main())


def test_load_replays_acp_and_headless_sessions(tmp_path: Path) -> None:
    project = project_dir(tmp_path)

    async def first(fake: FakeLLM) -> str:
        async with acp_peer(tmp_path, fake, project=project) as peer:
            await peer.initialize()
            sid = await peer.new_session()
            await peer.prompt(sid, "remember the word tangerine")
            return sid

    async def load(fake: FakeLLM, sid: str, word: str) -> Recorder:
        client = Recorder()
        async with acp_peer(tmp_path, fake, client, project=project) as peer:
            init = await peer.initialize()
            assert init.agent_capabilities.load_session
            await peer.conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
            replayed = list(client.updates)
            await peer.prompt(sid, "and now?")
            sent = fake.requests[-1]["json"]["messages"]
            assert word in str(sent)  # the loaded history goes on to the model
            client.updates[:] = replayed
        return client

    with FakeLLM([Turn(text="Noted: tangerine."), Turn(text="Still here.")]) as fake:
        sid = asyncio.run(first(fake))
        client = asyncio.run(load(fake, sid, "tangerine"))
    user = [u.content.text for _, u in client.updates if u.session_update == "user_message_chunk"]
    agent = client.text()
    assert user == ["remember the word tangerine"] and agent == "Noted: tangerine."

    # a session the headless CLI stored, with a tool call in it
    env = isolated_env(tmp_path / "home", None)
    script = [Turn(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": str(project / "a.txt")})]),
              Turn(text="It says apricot."), Turn(text="ok")]
    (project / "a.txt").write_text("apricot\n")
    with FakeLLM(script) as fake:
        env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="sk-ant-test-123456")
        done = subprocess.run([AIAGENT, "--headless", "--provider", "anthropic", "--prompt",
                               "what is in a.txt?"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        headless_id = _latest_session(env, project)
        client = asyncio.run(load(fake, headless_id, "apricot"))
    calls = [u for _, u in client.updates if u.session_update == "tool_call"]
    assert [c.kind for c in calls] == ["read"] and calls[0].title.endswith("a.txt")
    result = _updates_for(client, calls[0].tool_call_id)[-1]
    assert result.status == "completed" and "apricot" in result.raw_output
    assert client.text() == "Reading.It says apricot."


def _latest_session(env: dict[str, str], project: Path) -> str:
    code = ("from aiagent.infra.store.sessions import SessionStore; import os, sys; "
            "s = SessionStore.open(os.environ); print(s.list(sys.argv[1])[0].id)")
    out = subprocess.run([sys.executable, "-c", code, str(project)], env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_unknown_session_is_an_error_and_the_agent_goes_on(tmp_path: Path) -> None:
    async def main() -> None:
        with FakeLLM([Turn(text="fine")]) as fake:
            async with acp_peer(tmp_path, fake) as peer:
                await peer.initialize()
                for call in (peer.prompt("nosuchsession", "hi"),
                             peer.conn.load_session(cwd=str(peer.project), session_id="abc123def456",
                                                    mcp_servers=[]),
                             peer.conn.load_session(cwd=str(peer.project), session_id="../x",
                                                    mcp_servers=[]),
                             peer.conn.new_session(cwd="relative/dir", mcp_servers=[])):
                    try:
                        await call
                    except RequestError as exc:
                        assert exc.code == -32602
                    else:
                        raise AssertionError("no error")
                sid = await peer.new_session()
                assert (await peer.prompt(sid, "hi")).stop_reason == "end_turn"

    asyncio.run(main())


def test_files_are_read_through_the_editor_when_it_offers(tmp_path: Path) -> None:
    project = project_dir(tmp_path, {"notes.txt": "on disk\n"})
    notes = project / "notes.txt"
    script = [Turn(text="r", tool_calls=[ToolCall("read_file", {"file_path": str(notes)})]),
              Turn(text="ok")] * 2

    async def main(fs: bool) -> Recorder:
        client = Recorder(files={str(notes): "unsaved buffer\nsecond line\n"})
        with FakeLLM(script[:2]) as fake:
            async with acp_peer(tmp_path, fake, client, project=project) as peer:
                await peer.initialize(fs=fs)
                sid = await peer.new_session()
                await peer.prompt(sid, "read notes")
        return client

    def result(client: Recorder) -> str:
        return next(u.raw_output for _, u in client.updates
                    if u.session_update == "tool_call_update" and u.status == "completed")

    offered = asyncio.run(main(True))
    assert offered.file_reads == [str(notes)]
    assert result(offered) == "L1: unsaved buffer\nL2: second line"
    plain = asyncio.run(main(False))
    assert plain.file_reads == [] and result(plain) == "L1: on disk"
