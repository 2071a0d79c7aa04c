"""The editor's own capabilities, driven by the ``acp`` package's client side against the
real ``aiagent acp``: edits through ``fs/write_text_file``, commands in the editor's
terminal (kill + release on timeout and cancel), hostile clients beside legitimate ones,
``[acp] terminal`` and session modes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import RequestError
from tests.acp.peer import Recorder, acp_peer, alive, project_dir, survivors

from aiagent.testing import FakeLLM, ToolCall, Turn


def _results(client: Recorder) -> list[Any]:
    return [u for _, u in client.updates
            if u.session_update == "tool_call_update" and u.status in ("completed", "failed")]


def _user_config(tmp_path: Path, text: str) -> None:
    folder = tmp_path / "home" / ".config" / "aiagent"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


async def _run(tmp_path: Path, script: list[Turn], client: Recorder, prompts: list[str],
               *, write: bool = False, terminal: bool = False, fs: bool = False) -> list[Any]:
    stops = []
    with FakeLLM(script) as fake:
        async with acp_peer(tmp_path, fake, client, project=project_dir(tmp_path)) as peer:
            await peer.initialize(fs=fs, write=write, terminal=terminal)
            sid = await peer.new_session()
            for text in prompts:
                stops.append((await peer.prompt(sid, text)).stop_reason)
    return stops


# ---- fs/write_text_file ------------------------------------------------------------------


def test_edits_are_written_through_the_editor_after_our_checks(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    (tmp_path / "outside.txt").write_text("secret\n")
    (project / "link.txt").symlink_to(tmp_path / "outside.txt")
    notes = project / "notes.txt"
    notes.write_text("hello world\n")
    (project / "gone.txt").write_text("bye\n")
    patch = ("*** Begin Patch\n*** Add File: new/added.txt\n+added\n*** Update File: notes.txt\n"
             "@@\n-goodbye world\n+farewell world\n*** Delete File: gone.txt\n*** End Patch")
    script = [
        Turn(tool_calls=[ToolCall("write_file", {"file_path": "made.txt", "content": "a\nb\n"})]),
        Turn(tool_calls=[ToolCall("edit", {"file_path": str(notes), "old_string": "hello",
                                           "new_string": "goodbye"})]),
        Turn(tool_calls=[ToolCall("apply_patch", {"input": patch})]),
        Turn(tool_calls=[ToolCall("write_file", {"file_path": "link.txt", "content": "x"})]),
        Turn(tool_calls=[ToolCall("write_file", {"file_path": "../outside.txt", "content": "x"})]),
        Turn(text="done"),
    ]
    client = Recorder(answer="once")
    assert asyncio.run(_run(tmp_path, script, client, ["edit"], write=True)) == ["end_turn"]
    assert client.writes == [(str(project / "made.txt"), "a\nb\n"),
                             (str(notes), "goodbye world\n"),
                             (str(project / "new" / "added.txt"), "added\n"),
                             (str(notes), "farewell world\n")]
    assert notes.read_text() == "farewell world\n" and not (project / "gone.txt").exists()
    results = _results(client)
    assert [r.status for r in results] == ["completed"] * 3 + ["failed"] * 2
    assert "outside" in results[3].raw_output and "outside" in results[4].raw_output
    assert (tmp_path / "outside.txt").read_text() == "secret\n"
    assert results[1].content[0].type == "diff"  # the editor still gets the diff
    # the policy asked before every write (and the tool refused the two outside ones)
    assert len(client.permissions) == 5


def test_edits_start_from_the_editors_unsaved_buffer(tmp_path: Path) -> None:
    """The user typed in the editor without saving: read_file shows the buffer, and every
    edit starts from it, so handing the result to the editor keeps what the user typed."""
    project = project_dir(tmp_path)
    notes, other = project / "notes.py", project / "other.py"
    notes.write_text("a = 1\nb = 2\n")
    other.write_text("x = 1\n")
    patch = "*** Begin Patch\n*** Update File: other.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    script = [
        Turn(tool_calls=[ToolCall("read_file", {"file_path": str(notes)})]),
        Turn(tool_calls=[ToolCall("edit", {"file_path": str(notes), "old_string": "a = 1",
                                           "new_string": "a = 10"})]),
        Turn(tool_calls=[ToolCall("edit", {"file_path": str(notes), "old_string": "c = 3",
                                           "new_string": "c = 30"})]),
        Turn(tool_calls=[ToolCall("apply_patch", {"input": patch})]),
        Turn(tool_calls=[ToolCall("write_file", {"file_path": str(other), "content": "z\n"})]),
        Turn(text="done"),
    ]
    client = Recorder(answer="once", files={str(notes): "a = 1\nb = 2\nc = 3  # typed\n",
                                            str(other): "x = 1\ny = 2  # typed\n"})
    asyncio.run(_run(tmp_path, script, client, ["edit"], fs=True, write=True))
    assert [r.status for r in _results(client)] == ["completed"] * 5
    assert client.writes == [(str(notes), "a = 10\nb = 2\nc = 3  # typed\n"),
                             (str(notes), "a = 10\nb = 2\nc = 30  # typed\n"),
                             (str(other), "x = 2\ny = 2  # typed\n"),
                             (str(other), "z\n")]


@dataclass
class TypingEditor(Recorder):
    """The user types in a buffer just after the model read it."""

    typed: str = "d = 4\n"

    async def read_text_file(self, path: str, session_id: str, **kw: Any) -> Any:
        response = await super().read_text_file(path, session_id, **kw)
        if path in self.files and self.file_reads.count(path) == 1:
            self.files[path] += self.typed
        return response


def test_an_edit_after_the_user_typed_in_the_buffer_is_refused(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    notes = project / "notes.py"
    notes.write_text("a = 1\n")
    edit = ToolCall("edit", {"file_path": str(notes), "old_string": "a = 1", "new_string": "a = 2"})
    script = [Turn(tool_calls=[ToolCall("read_file", {"file_path": str(notes)})]),
              Turn(tool_calls=[edit]),
              Turn(tool_calls=[ToolCall("read_file", {"file_path": str(notes)})]),
              Turn(tool_calls=[edit]),
              Turn(text="done")]
    client = TypingEditor(answer="once", files={str(notes): "a = 1\n"})
    asyncio.run(_run(tmp_path, script, client, ["edit"], fs=True, write=True))
    results = _results(client)
    assert [r.status for r in results] == ["completed", "failed", "completed", "completed"]
    assert "notes.py changed in the editor since you last read it" in results[1].raw_output
    # refused: nothing handed over; after reading again the edit keeps what was typed
    assert client.writes == [(str(notes), "a = 2\nd = 4\n")]


def test_an_editor_that_fails_to_write_is_an_error_and_nothing_is_half_done(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    (project / "a.txt").write_text("one\n")
    (project / "b-locked.txt").write_text("two\n")
    patch = ("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b-locked.txt\n"
             "@@\n-two\n+TWO\n*** Add File: c.txt\n+three\n*** End Patch")
    script = [
        Turn(tool_calls=[ToolCall("apply_patch", {"input": patch})]),
        Turn(tool_calls=[ToolCall("edit", {"file_path": "b-locked.txt", "old_string": "two",
                                           "new_string": "2"})]),
        Turn(tool_calls=[ToolCall("edit", {"file_path": "a.txt", "old_string": "one",
                                           "new_string": "uno"})]),
        Turn(text="done"),
    ]
    client = Recorder(answer="once", write_error="locked")
    asyncio.run(_run(tmp_path, script, client, ["go"], write=True))
    results = _results(client)
    assert [r.status for r in results] == ["failed", "failed", "completed"]
    assert "the editor could not write b-locked.txt" in results[0].raw_output
    assert "nothing was changed" in results[1].raw_output
    # the patch's first file was put back; the third never written
    assert (project / "b-locked.txt").read_text() == "two\n"
    assert not (project / "c.txt").exists()
    assert (project / "a.txt").read_text() == "uno\n"  # the legitimate edit beside it
    assert (str(project / "a.txt"), "one\n") in client.writes  # restored through the editor


def test_without_the_write_capability_the_disk_is_written(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    script = [Turn(tool_calls=[ToolCall("write_file", {"file_path": "m.txt", "content": "m\n"})]),
              Turn(text="done")]
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["go"], write=False))
    assert client.writes == [] and (project / "m.txt").read_text() == "m\n"


# ---- terminal/* ----------------------------------------------------------------------------


def test_commands_run_in_the_editors_terminal_with_our_result_contract(tmp_path: Path) -> None:
    (project_dir(tmp_path) / "sub").mkdir()
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "echo out-$((6*7)); exit 3"})]),
              Turn(tool_calls=[ToolCall("shell_command", {"command": "touch made && pwd",
                                                          "workdir": "sub"})]),
              Turn(text="done")]
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["run"], terminal=True))
    creates = client.calls("create")
    assert len(creates) == 2 and creates[0][2:] == ("-lc", "echo out-$((6*7)); exit 3")
    assert (tmp_path / "proj" / "sub" / "made").exists()  # in the call's workdir
    assert [c[1] for c in client.calls("release")] == ["term-1", "term-2"]
    assert client.calls("kill") == []
    first, second = _results(client)
    assert first.content[0].type == "terminal" and first.content[0].terminal_id == "term-1"
    assert first.raw_output.startswith("Exit code: 3\nWall time:") and "out-42" in first.raw_output
    assert second.raw_output.startswith("Exit code: 0\n")
    assert second.raw_output.rstrip().endswith(str(tmp_path / "proj" / "sub"))
    embeds = [u for _, u in client.updates if u.session_update == "tool_call_update"
              and u.status == "in_progress" and u.content and u.content[0].type == "terminal"]
    assert len(embeds) == 2
    assert len(client.permissions) == 2  # the approval came first, as without an editor


def test_timeout_kills_and_releases_the_terminal(tmp_path: Path) -> None:
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "echo begun; sleep 60",
                                                          "timeout_ms": 3000})]),
              Turn(text="done")]
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["run"], terminal=True))
    assert [c[0] for c in client.terminal_calls if c[0] != "output"][-2:] == ["kill", "release"]
    (result,) = _results(client)
    assert "Exit code: 124" in result.raw_output and "command timed out" in result.raw_output
    assert "begun" in result.raw_output
    assert not alive(client.pids[0])


def test_cancel_kills_and_releases_the_terminal_and_the_session_goes_on(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "sleep 60"})]),
              Turn(text="back again")]

    async def main() -> Recorder:
        client = Recorder(answer="once")
        with FakeLLM(script) as fake:
            async with acp_peer(tmp_path, fake, client, project=project) as peer:
                await peer.initialize(terminal=True)
                sid = await peer.new_session()
                turn = asyncio.create_task(peer.prompt(sid, "long"))
                await client.wait_for(lambda: bool(client.calls("wait")))
                await peer.conn.cancel(session_id=sid)
                assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
                await client.wait_for(lambda: bool(client.calls("release")))
                assert client.calls("kill")
                client.updates.clear()
                assert (await peer.prompt(sid, "hello?")).stop_reason == "end_turn"
                assert client.text() == "back again"
        return client

    client = asyncio.run(main())
    assert not survivors(client.pids[:1])


def test_hostile_terminals_fail_safely_beside_a_working_one(tmp_path: Path) -> None:
    # terminal/create errors: the call fails (nothing ran twice); later commands use our runner
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "echo first"})]),
              Turn(tool_calls=[ToolCall("shell_command", {"command": "echo second-$((1+1))"})]),
              Turn(text="done")]
    client = Recorder(answer="once", terminal_mode="create_error")
    asyncio.run(_run(tmp_path / "a", script, client, ["run"], terminal=True))
    first, second = _results(client)
    assert first.status == "failed" and "could not start the command" in first.raw_output
    assert len(client.calls("create")) == 1 and "second-2" in second.raw_output

    # wait_for_exit never answers: our timeout ends it, the terminal is killed and released
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "true", "timeout_ms": 1500})]),
              Turn(text="done")]
    client = Recorder(answer="once", terminal_mode="never_exit")
    asyncio.run(_run(tmp_path / "b", script, client, ["run"], terminal=True))
    (result,) = _results(client)
    assert "Exit code: 124" in result.raw_output
    assert client.calls("kill") and client.calls("release")

    # output that never ends and is never cut by the client: capped as our runner caps it
    flood = "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo tail-mark; sleep 60"
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": flood, "timeout_ms": 8000})]),
              Turn(text="done")]
    client = Recorder(answer="once", terminal_mode="ignore_limit")
    asyncio.run(_run(tmp_path / "c", script, client, ["run"], terminal=True))
    (result,) = _results(client)
    assert "command timed out" in result.raw_output and "tail-mark" in result.raw_output
    assert len(result.raw_output) < 60_000  # 10 000 tokens of output, not 3 MB


def test_agent_setting_keeps_commands_in_our_runner_even_when_offered(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text('[acp]\nterminal = "agent"\n')
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "echo ours-$((2*3))"})]),
              Turn(text="done")]
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["run"], terminal=True))
    assert client.terminal_calls == []
    (result,) = _results(client)
    assert "ours-6" in result.raw_output and result.content[0].type == "content"


def test_auto_keeps_sandboxed_commands_in_our_runner_and_editor_overrides(tmp_path: Path) -> None:
    import pytest

    from aiagent.infra.sandbox import detect

    if not detect("auto").available:
        pytest.skip(f"needs a working sandbox (bubblewrap or Landlock): {detect('auto').detail}")
    project = project_dir(tmp_path)
    (project / ".agent").mkdir()
    (project / ".agent" / "config.toml").write_text("[sandbox]\nalways = true\n")
    script = [Turn(tool_calls=[ToolCall("shell_command", {"command": "echo boxed"})]),
              Turn(text="done")]
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["run"], terminal=True))
    assert client.terminal_calls == [] and "boxed" in _results(client)[0].raw_output
    # an untrusted project cannot choose "editor"; the user's own config can
    (project / ".agent" / "config.toml").write_text('[sandbox]\nalways = true\n[acp]\nterminal = "editor"\n')
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["run"], terminal=True))
    assert client.terminal_calls == []
    _user_config(tmp_path, '[acp]\nterminal = "editor"\n')
    client = Recorder(answer="once")
    asyncio.run(_run(tmp_path, script, client, ["run"], terminal=True))
    assert len(client.calls("create")) == 1 and "boxed" in _results(client)[0].raw_output


# ---- session modes -------------------------------------------------------------------------


def test_session_modes_switch_the_policy(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    (project / "n.txt").write_text("a\n")

    def edit(old: str, new: str) -> Turn:
        return Turn(tool_calls=[ToolCall("edit", {"file_path": "n.txt", "old_string": old,
                                                  "new_string": new})])

    script = [edit("a", "b"), Turn(text="1"), edit("b", "c"), Turn(text="2"),
              edit("c", "d"), Turn(text="3")]

    async def main() -> Recorder:
        client = Recorder(answer="deny")
        with FakeLLM(script) as fake:
            async with acp_peer(tmp_path, fake, client, project=project) as peer:
                await peer.initialize()
                response = await peer.conn.new_session(cwd=str(project), mcp_servers=[])
                sid = response.session_id
                assert response.modes.current_mode_id == "prompt"
                assert [m.id for m in response.modes.available_modes] == [
                    "read-only", "prompt", "auto-edit", "full-auto"]
                await peer.conn.set_session_mode(session_id=sid, mode_id="auto-edit")
                assert any(u.session_update == "current_mode_update"
                           and u.current_mode_id == "auto-edit" for _, u in client.updates)
                await peer.prompt(sid, "edit")  # not asked: auto-edit
                assert client.permissions == [] and (project / "n.txt").read_text() == "b\n"
                try:
                    await peer.conn.set_session_mode(session_id=sid, mode_id="yolo")
                except RequestError as exc:
                    assert exc.code == -32602
                else:
                    raise AssertionError("an unknown mode was accepted")
                await peer.prompt(sid, "edit")  # still auto-edit
                assert client.permissions == [] and (project / "n.txt").read_text() == "c\n"
                await peer.conn.set_session_mode(session_id=sid, mode_id="read-only")
                await peer.prompt(sid, "edit")
                assert (project / "n.txt").read_text() == "c\n"
                loaded = await peer.conn.load_session(cwd=str(project), session_id=sid,
                                                      mcp_servers=[])
                assert loaded.modes.current_mode_id == "read-only"
        return client

    client = asyncio.run(main())
    assert "read-only mode" in _results(client)[-1].raw_output
