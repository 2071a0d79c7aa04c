"""A process skill: JSON-RPC 2.0 on stdin/stdout, one JSON object per line.

aiagent sends `initialize`, then `tool/call`; the skill asks aiagent for files with
`host/read_file` (aiagent checks the skill's file:read permission).
"""

import itertools
import json
import sys

ids = itertools.count(1)


def send(message):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def host(function, *args):
    """Call an aiagent host function and wait for its answer."""
    rid = f"s{next(ids)}"
    send({"id": rid, "method": f"host/{function}", "params": {"args": list(args)}})
    for line in sys.stdin:
        reply = json.loads(line)
        if reply.get("id") == rid:
            if reply.get("error"):
                raise RuntimeError(reply["error"]["message"])
            return reply["result"]
    raise SystemExit(0)


def line_stats(arguments):
    lines = host("read_file", arguments["path"]).splitlines()
    longest = sorted(range(len(lines)), key=lambda i: -len(lines[i]))[: int(arguments.get("top", 3))]
    blank = sum(1 for line in lines if not line.strip())
    return {
        "lines": len(lines),
        "blank_ratio": round(blank / len(lines), 3) if lines else 0,
        "longest": [{"line": i + 1, "length": len(lines[i])} for i in longest],
    }


TOOLS = [{
    "name": "line_stats",
    "description": "Line statistics of a project file: count, blank ratio, longest lines",
    "input_schema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "top": {"type": "integer", "minimum": 1}},
        "required": ["path"],
    },
}]


def handle(method, params):
    if method == "initialize":
        return {"tools": TOOLS}
    if method == "tool/call" and params["name"] == "line_stats":
        return line_stats(params["arguments"])
    raise ValueError(f"unknown method {method}")


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:  # a notification, like shutdown
        if request.get("method") == "shutdown":
            break
        continue
    try:
        send({"id": request["id"], "result": handle(request["method"], request.get("params") or {})})
    except Exception as exc:  # report, keep serving
        send({"id": request["id"], "error": {"code": -32000, "message": str(exc)}})
