"""``aiagent acp`` against a client we did not write: the TypeScript ACP SDK from npm
(``@agentclientprotocol/sdk``, installed by .ci/run into a cache folder named by
``AIAGENT_ACP_SDK``). The Node script (tests/acp/node_client.mjs) offers fs + terminal,
runs a prompt where the model runs a command and edits a file, answers the permissions
and prints a JSON transcript that this test checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.acp.peer import AIAGENT, isolated_env, project_dir

from aiagent.testing import FakeLLM, ToolCall, Turn

SCRIPT = Path(__file__).with_name("node_client.mjs")
PACKAGE = "@agentclientprotocol/sdk"


def _sdk_prefix() -> Path:
    node = shutil.which("node")
    prefix = os.environ.get("AIAGENT_ACP_SDK", "")
    if node is None:
        pytest.skip(f"needs node + {PACKAGE}: node is not on PATH (.ci/run installs it)")
    if not prefix or not (Path(prefix) / "node_modules" / PACKAGE / "package.json").is_file():
        pytest.skip(f"needs node + {PACKAGE}: AIAGENT_ACP_SDK is not set to its npm prefix "
                    "(.ci/run installs it)")
    return Path(prefix)


def test_the_typescript_sdk_client_runs_a_command_in_its_terminal_and_an_edit(tmp_path: Path) -> None:
    prefix = _sdk_prefix()
    project = project_dir(tmp_path, {"notes.txt": "hello world\n"})
    notes = project / "notes.txt"
    script = [
        Turn(text="Running.", tool_calls=[ToolCall("shell_command", {"command": "echo node-$((6*7)) > out.txt; cat out.txt"})]),
        Turn(text="Editing.", tool_calls=[ToolCall("edit", {"file_path": str(notes), "old_string": "hello",
                                                            "new_string": "goodbye"})]),
        Turn(text="All done."),
    ]
    with FakeLLM(script) as fake:
        env = isolated_env(tmp_path / "home", fake)
        with (tmp_path / "acp.log").open("wb") as log:
            done = subprocess.run(["node", str(SCRIPT), str(prefix), AIAGENT, str(project), "run and edit"],
                                  env=env, stdout=subprocess.PIPE, stderr=log, timeout=180)
    lines = done.stdout.decode().strip().splitlines()
    assert lines, (tmp_path / "acp.log").read_text()[-3000:]
    transcript = json.loads(lines[-1])
    assert done.returncode == 0 and transcript["failure"] is None, transcript["failure"]
    assert transcript["agentInfo"]["name"] == "aiagent"
    assert transcript["modes"]["currentModeId"] == "prompt"
    assert [m["id"] for m in transcript["modes"]["availableModes"]] == [
        "read-only", "prompt", "auto-edit", "full-auto"]
    assert transcript["badMode"]["code"] == -32602
    assert transcript["stopReason"] == "end_turn"
    # the approval came first, from the editor, for both calls
    assert [p["kind"] for p in transcript["permissions"]] == ["execute", "edit"]
    assert "once" in transcript["permissions"][0]["options"]
    # the command ran in the Node client's terminal, then was released
    calls = [c["call"] for c in transcript["terminal"]]
    assert calls[0] == "create" and calls[-1] == "release" and "kill" not in calls
    assert transcript["terminal"][0]["args"][-1].startswith("echo node-$((6*7))")
    assert (project / "out.txt").read_text() == "node-42\n"
    updates = transcript["updates"]
    embedded = [u for u in updates if u.get("sessionUpdate") == "tool_call_update"
                and any(c.get("type") == "terminal" for c in u.get("content") or [])]
    assert embedded and embedded[0]["content"][0]["terminalId"] == "node-term-1"
    finished = [u for u in updates if u.get("sessionUpdate") == "tool_call_update"
                and u.get("status") == "completed"]
    assert "Exit code: 0" in finished[0]["rawOutput"] and "node-42" in finished[0]["rawOutput"]
    # the edit went through the editor's fs/write_text_file
    assert transcript["writes"] == [{"path": str(notes), "content": "goodbye world\n"}]
    assert notes.read_text() == "goodbye world\n"
    assert any(u.get("sessionUpdate") == "current_mode_update" for u in updates)
    text = "".join(u["content"]["text"] for u in updates if u.get("sessionUpdate") == "agent_message_chunk")
    assert text == "Running.Editing.All done."
