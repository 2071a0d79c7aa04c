"""``aiagent acp`` against bad input and broken clients: malformed lines, unknown methods
and sessions get JSON-RPC errors and the agent goes on; a permission request that is never
answered does not stop a cancel; a client that closes stdin mid-turn gets a clean exit with
the session stored and no process left behind; stdout carries protocol JSON only."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.acp.peer import AIAGENT, Recorder, acp_peer, isolated_env, survivors

from aiagent.testing import FakeLLM, ToolCall, Turn


class RawPeer:
    """``aiagent acp`` spoken to line by line; every stdout line must be JSON-RPC."""

    def __init__(self, root: Path, fake: FakeLLM) -> None:
        self.project = root / "proj"
        self.project.mkdir(exist_ok=True)
        self.env = isolated_env(root / "home", fake)
        self.log = (root / "acp.log").open("wb")
        self.proc = subprocess.Popen([AIAGENT, "acp", "--provider", "anthropic"], cwd=self.project,
                                     env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)  # anything else on stdout fails the test
            assert message.get("jsonrpc") == "2.0", line
            self.lines.put(message)
        self.lines.put(None)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def next(self, timeout: float = 60) -> dict[str, Any]:
        message = self.lines.get(timeout=timeout)
        assert message is not None, "the agent closed its stdout"
        return message

    def response(self, request_id: Any, timeout: float = 60) -> dict[str, Any]:
        """The response to ``request_id``; permission requests met on the way are allowed once."""
        while True:
            message = self.next(timeout)
            if message.get("method") == "session/request_permission":
                self.send({"id": message["id"], "result": {"outcome": {
                    "outcome": "selected", "optionId": "once"}}})
            elif "method" not in message and message.get("id") == request_id:
                return message

    def open_session(self) -> str:
        """``initialize`` (id 1) then ``session/new`` (id 2) in the project: the session id."""
        self.send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        self.response(1)
        return self.new_session(2)

    def new_session(self, request_id: int) -> str:
        self.send({"id": request_id, "method": "session/new",
                   "params": {"cwd": str(self.project), "mcpServers": []}})
        return str(self.response(request_id)["result"]["sessionId"])

    def send_prompt(self, request_id: int, session_id: str, text: str) -> None:
        self.send({"id": request_id, "method": "session/prompt", "params": {
            "sessionId": session_id, "prompt": [{"type": "text", "text": text}]}})

    def hang_up(self) -> int:
        """Close the agent's stdin (the client leaves): its exit code."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def __enter__(self) -> RawPeer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def test_bad_input_gets_errors_and_the_agent_keeps_running(tmp_path: Path) -> None:
    with FakeLLM([Turn(text="still fine")]) as fake, RawPeer(tmp_path, fake) as peer:
        peer.send_raw(b"this is not json\n")
        assert peer.next()["error"]["code"] == -32700
        peer.send_raw(b"[1, 2, 3]\n")
        assert peer.next()["error"]["code"] == -32600
        peer.send_raw(b'{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}\n')
        assert peer.next()["error"]["code"] == -32600
        peer.send_raw(b'{"jsonrpc":"2.0","id":[1],"result":1}\n')  # a response to nothing
        assert peer.next()["error"]["code"] == -32600
        peer.send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        assert peer.response(1)["result"]["agentCapabilities"]["loadSession"] is True
        peer.send({"id": 2, "method": "no/such/method", "params": {}})
        assert peer.response(2)["error"]["code"] == -32601
        peer.send({"id": 3, "method": "session/prompt",
                   "params": {"sessionId": "nope", "prompt": [{"type": "text", "text": "x"}]}})
        assert peer.response(3)["error"]["code"] == -32602
        peer.send({"id": 4, "method": "session/new", "params": {"cwd": 42}})
        assert peer.response(4)["error"]["code"] == -32602
        peer.send_raw(b'{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":"x"}\n')
        assert peer.next()["error"]["code"] == -32600
        # the legitimate use beside it still works
        sid = peer.new_session(6)
        peer.send_prompt(7, sid, "hi")
        assert peer.response(7)["result"]["stopReason"] == "end_turn"
        assert peer.proc.poll() is None
        assert peer.hang_up() == 0  # EOF: a clean exit


def test_a_permission_never_answered_can_still_be_cancelled(tmp_path: Path) -> None:
    script = [Turn(text="asking", tool_calls=[ToolCall("shell_command", {"command": "touch never.txt"})]),
              Turn(text="next turn works")]

    async def main() -> None:
        client = Recorder(answer="never")
        with FakeLLM(script) as fake:
            async with acp_peer(tmp_path, fake, client) as peer:
                await peer.initialize()
                sid = await peer.new_session()
                turn = asyncio.create_task(peer.prompt(sid, "do it"))
                await client.wait_for(lambda: len(client.permissions) == 1)
                await peer.conn.cancel(session_id=sid)
                assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
                assert not (peer.project / "never.txt").exists()
                client.updates.clear()
                assert (await peer.prompt(sid, "again")).stop_reason == "end_turn"
                assert client.text() == "next turn works"

    asyncio.run(main())



def test_stdin_closed_mid_turn_exits_cleanly_and_keeps_the_session(tmp_path: Path) -> None:
    pids = tmp_path / "proj" / "pids.txt"
    command = f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; echo started; wait"
    script = [Turn(text="long", tool_calls=[ToolCall("shell_command", {"command": command})])]
    with FakeLLM(script) as fake, RawPeer(tmp_path, fake) as peer:
        sid = peer.open_session()
        peer.send_prompt(3, sid, "run the long one")
        while True:  # until the command prints
            message = peer.next()
            if message.get("method") == "session/request_permission":
                peer.send({"id": message["id"], "result": {"outcome": {
                    "outcome": "selected", "optionId": "once"}}})
            update = message.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "tool_call_update" \
                    and "started" in json.dumps(update.get("content")):
                break
        assert peer.hang_up() == 0
    started = [int(p) for p in pids.read_text().split()]
    assert not survivors(started), "orphan processes after the client left"
    code = ("from aiagent.infra.store.sessions import SessionStore; import os, sys; "
            "s = SessionStore.open(os.environ); print([m.text for m in s.messages(sys.argv[1])])")
    out = subprocess.run([os.sys.executable, "-c", code, sid], env=peer.env,  # type: ignore[attr-defined]
                         capture_output=True, text=True, check=True).stdout
    assert "run the long one" in out


def test_stray_output_never_reaches_the_protocol_stream(tmp_path: Path) -> None:
    """A command the agent runs prints to its own pipe, and anything printed in-process goes
    to stderr: stdout stays JSON (RawPeer fails on any other line)."""
    script = [Turn(text="x", tool_calls=[ToolCall("shell_command", {"command": "echo NOISE; echo NOISE >&2"})]),
              Turn(text="done")]
    with FakeLLM(script) as fake, RawPeer(tmp_path, fake) as peer:
        sid = peer.open_session()
        peer.send_prompt(3, sid, "noise")
        assert peer.response(3)["result"]["stopReason"] == "end_turn"
        assert peer.hang_up() == 0
