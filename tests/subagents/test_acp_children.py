"""Over ACP (the real ``aiagent acp`` on stdio, FakeLLM on loopback): with two children at
work at once, each child's permission request names that child's own tool call, not the
call started last. A PreToolUse hook holds child A's call back, so child B's call starts
between A's call and A's permission request."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.acp.peer import Recorder, acp_peer, project_dir
from tests.subagents.scripting import PARENT_PROMPT, conversation, task

from aiagent.testing import FakeLLM, ToolCall, Turn


def test_each_child_s_permission_names_its_own_call(tmp_path: Path) -> None:
    project = project_dir(tmp_path)
    (project / ".git").mkdir()
    config = tmp_path / "home" / ".config" / "aiagent" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[[hooks.PreToolUse]]\nmatcher = "shell_command"\n'
                      'command = "if grep -q \'touch a\'; then sleep 2; fi; exit 0"\n')
    touch = {name: ToolCall("shell_command", {"command": f"touch {name}.txt"}) for name in "ab"}
    answer = conversation(
        [Turn(tool_calls=[task("make a", description="A"), task("make b", description="B")]),
         Turn(text="both done")],
        {"make a": [Turn(tool_calls=[touch["a"]]), Turn(text="a done")],
         "make b": [Turn(tool_calls=[touch["b"]]), Turn(text="b done")]})

    async def main() -> Recorder:
        client = Recorder(answer="once")
        with FakeLLM(responder=answer) as fake:
            async with acp_peer(tmp_path, fake, client, project=project) as peer:
                await peer.initialize()
                sid = await peer.new_session()
                done = await asyncio.wait_for(peer.prompt(sid, PARENT_PROMPT), 60)
                assert done.stop_reason == "end_turn"
        return client

    client = asyncio.run(main())
    assert (project / "a.txt").exists() and (project / "b.txt").exists()
    started = {u.tool_call_id: u.title for _, u in client.updates if u.session_update == "tool_call"}
    assert len(client.permissions) == 2
    assert [p.raw_input["command"] for p in client.permissions] == ["touch b.txt", "touch a.txt"]
    for asked in client.permissions:
        command = asked.raw_input["command"]
        assert asked.tool_call_id in started, (asked.tool_call_id, started)
        title = started[asked.tool_call_id]
        assert command in title and title.startswith("[general#"), (command, title)
        assert asked.tool_call_id.split("/")[0] == title[1:].split("]")[0]
        assert asked.title == title  # the request is titled with the child's label too
