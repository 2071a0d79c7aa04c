"""A small ACP engine for the resume tests, run as ``python fake_acp_engine.py MODE``.

Each answer says which engine session it ran in and what the engine was asked before:
``[SESSION] MODE heard: TEXT (loads: N)``. New sessions are ``s<pid>``. MODE:
    noload   no loadSession capability
    loaderr  advertises loadSession; session/load answers an error
    garbage  advertises loadSession; session/load replays garbage, malformed and
             well-formed updates ("REPLAYED ..."), then succeeds
    endless  advertises loadSession; session/load replays without end, never answers
    intid    session/new answers a number as the session id
    longid   session/new answers a 100,000-character session id
"""

import json
import os
import sys

MODE = sys.argv[1]
state = {"session": "", "loads": 0}


def say(message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(session, body):
    say({"method": "session/update", "params": {"sessionId": session, "update": body}})


def text(value):
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": value}}


def initialize(rid):
    capabilities = {} if MODE == "noload" else {"loadSession": True}
    say({"id": rid, "result": {"protocolVersion": 1, "agentCapabilities": capabilities}})


def new_session(rid):
    session = {"intid": 42, "longid": "x" * 100_000}.get(MODE, f"s{os.getpid()}")
    state["session"] = session
    say({"id": rid, "result": {"sessionId": session}})


def load(rid, params):
    session = params.get("sessionId")
    state["loads"] += 1
    if MODE == "loaderr":
        say({"id": rid, "error": {"code": -32002, "message": "session store is gone"}})
        return
    if MODE == "endless":
        n = 0
        while True:
            n += 1
            update(session, text(f"REPLAYED {n}"))
    sys.stdout.write("garbage {not json\n[1, 2]\n\"just a string\"\n")
    update(session, "bogus")
    update(session, {"sessionUpdate": "tool_call", "toolCallId": ["x"]})
    update("someone-else", text("REPLAYED for another session"))
    update(session, {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "REPLAYED user"}})
    update(session, text("REPLAYED answer"))
    update(session, {"sessionUpdate": "tool_call", "toolCallId": "old", "title": "REPLAYED tool"})
    state["session"] = session
    say({"id": rid, "result": {}})


def prompt(rid, params):
    blocks = params.get("prompt") or [{}]
    heard = blocks[0].get("text", "")
    answer = f"[{state['session']}] {MODE} heard: {heard} (loads: {state['loads']})"
    update(state["session"], text(answer))
    say({"id": rid, "result": {"stopReason": "end_turn"}})


for line in sys.stdin:
    message = json.loads(line)
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "initialize":
        initialize(rid)
    elif method == "session/new":
        new_session(rid)
    elif method == "session/load":
        load(rid, params)
    elif method == "session/prompt":
        prompt(rid, params)
    elif rid is not None and method is not None:
        say({"id": rid, "error": {"code": -32601, "message": "method not found"}})
