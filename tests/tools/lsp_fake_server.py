"""A tiny language server for the hostile cases: `fake_server.py MODE`.

ok       initialises; on didOpen/didChange publishes one error "fake problem" at 1:1
garbage  writes junk where LSP headers belong
hang     never answers initialize
crash    initialises, then exits on the first document - once: with a marker file as the
         second argument, later starts behave as `ok`
"""

import json
import sys
from pathlib import Path


def read() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length or 0))


def send(message: dict) -> None:
    data = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
    sys.stdout.buffer.flush()


def main(mode: str) -> None:
    if mode == "garbage":
        sys.stdout.write("hello, I am not a language server\r\n\r\n" * 3)
        sys.stdout.flush()
    while (message := read()) is not None:
        method = message.get("method")
        if method == "initialize":
            if mode == "hang":
                continue
            send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif method in ("textDocument/didOpen", "textDocument/didChange"):
            if mode == "crash" and not MARKER.exists():
                MARKER.write_text("crashed once")
                sys.exit(3)
            uri = message["params"]["textDocument"]["uri"]
            send({"method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                 "severity": 1, "message": "fake problem", "source": "fake"},
                {"range": "not a range", "message": "malformed, dropped"}]}})
        elif method == "shutdown":
            send({"id": message["id"], "result": None})
        elif method == "exit":
            return


if __name__ == "__main__":
    MARKER = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("/nonexistent/marker")
    main(sys.argv[1])
