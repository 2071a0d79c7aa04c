"""One tool call in its own process: ``python -m aiagent.frontends.mcp_server.worker``.

Reads one JSON request on stdin (``{"tool", "args", "root", "flags"}``) and writes JSON
lines on stdout: ``{"progress", "total", "message"}`` while it works, then one
``{"result": …}`` or ``{"error": "…"}``. Anything else that would reach stdout (a library's
stray print) goes to stderr, which the server copies to its own log.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

PROGRESS_EVERY = 0.2  # seconds between two progress lines that differ only in their numbers


class Out:
    """The protocol's stdout, written from any thread, progress lines rate-limited."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.lock = stream, threading.Lock()
        self.last, self.kind = 0.0, ""

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, default=str).encode() + b"\n"
        with self.lock:
            self.stream.write(data)
            self.stream.flush()

    def progress(self, done: float, total: float | None, message: str) -> None:
        now, kind = time.monotonic(), re.sub(r"\d+", "#", message)
        if kind == self.kind and now - self.last < PROGRESS_EVERY:
            return
        self.last, self.kind = now, kind
        self.send({"progress": done, "total": total, "message": message})


def main() -> int:
    out = Out(os.fdopen(os.dup(1), "wb", buffering=0))
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="aiagent mcp worker: %(levelname)s %(message)s")
    try:
        request = json.loads(sys.stdin.buffer.read())
        out.send(_run(request, out))
    except KeyboardInterrupt:
        return 130
    return 0


def _run(request: dict[str, Any], out: Out) -> dict[str, Any]:
    from aiagent.frontends.mcp_server.tasks import TASKS, Job, TaskError

    args = dict(request["args"])
    for key in ("path", "out_dir"):
        if isinstance(args.get(key), str):
            args[key] = Path(args[key])
    job = Job(Path(request["root"]), request.get("flags") or {}, out.progress)
    try:
        return {"result": TASKS[request["tool"]](args, job)}
    except TaskError as exc:
        return {"error": str(exc)}
    except Exception as exc:  # one line for the client and the log (the traceback: --debug)
        debug = os.environ.get("AIAGENT_DEBUG", "").lower() in ("1", "true", "yes")
        logging.getLogger("aiagent.mcp").error("%s failed: %r", request.get("tool"), exc,
                                               exc_info=debug)
        return {"error": f"internal error: {type(exc).__name__}: {exc}"}


if __name__ == "__main__":
    sys.exit(main())
