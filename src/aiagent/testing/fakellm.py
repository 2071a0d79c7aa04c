"""FakeLLM: a real HTTP server on 127.0.0.1 that replays a script of turns.

It speaks the Anthropic (``/v1/messages``), OpenAI (``/v1/chat/completions`` and
``/chat/completions``) and Ollama (``/api/chat``) wire formats. Every chat request takes
the next :class:`~aiagent.testing.Turn`, whatever the endpoint; when the script runs out
the answer is the text ``FakeLLM: script exhausted``. Answers always stream.

    with FakeLLM([Turn(text="Hello.")]) as fake:
        ...  # point a provider at fake.url (OpenAI: fake.url + "/v1")
        fake.requests  # every chat request: {"path", "headers", "json", "body" (the bytes sent), "time"}
        fake.probes    # the other requests (GET /v1/models, /props, POST /api/show...)

Run it for a person or another process: ``python -m aiagent.testing.fakellm --script
FILE [--port N]`` prints the URL and serves until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from aiagent.testing import formats
from aiagent.testing.faults import fault_body
from aiagent.testing.formats import Format
from aiagent.testing.script import EXHAUSTED, ScriptError, Turn, load_script

EventMaker = Callable[[Turn, dict[str, Any], int], list[bytes]]
ErrorMaker = Callable[[int, str], dict[str, Any]]
ROUTES: dict[str, tuple[Format, EventMaker, ErrorMaker]] = {
    "/v1/messages": (formats.ANTHROPIC, formats.anthropic_events, formats.anthropic_error),
    "/v1/chat/completions": (formats.OPENAI, formats.openai_events, formats.openai_error),
    "/chat/completions": (formats.OPENAI, formats.openai_events, formats.openai_error),
    "/api/chat": (formats.OLLAMA, formats.ollama_events, formats.ollama_error),
}
MODELS = {
    "/v1/models": {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "fake"}]},
    "/models": {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "fake"}]},
    "/api/tags": {"models": [{"name": "fake", "model": "fake"}]},
    "/api/version": {"version": "0.0.0-fake"},
}


class FakeLLM:
    """A scripted LLM server. Use as a context manager, or :meth:`start`/:meth:`stop`."""

    def __init__(
        self, script: Iterable[Turn] = (), *, host: str = "127.0.0.1", port: int = 0,
        context_size: int | None = None,
        responder: Callable[[dict[str, Any]], Turn | None] | None = None,
    ) -> None:
        self.script: list[Turn] = list(script)
        #: when set, asked first with each chat request's JSON body: a Turn answers it,
        #: None falls back to the script (answers that depend on the request, in any order)
        self.responder = responder
        #: when set, the server tells its context size as llama.cpp (``GET /props``) and
        #: Ollama (``POST /api/show``) do
        self.context_size = context_size
        self.requests: list[dict[str, Any]] = []
        self.probes: list[dict[str, Any]] = []  # GETs and /api/show: not chat requests
        self.connections = 0  # TCP connections accepted (clients should reuse them)
        self.host, self.port = host, port
        self._next = 0  # index of the next script turn
        self._serial = 0  # requests answered
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> FakeLLM:
        """A server replaying the JSON script in ``path`` (see :mod:`aiagent.testing.script`)."""
        return cls(load_script(path), **kwargs)

    @property
    def url(self) -> str:
        """The base URL for Anthropic and Ollama; OpenAI's is :attr:`openai_url`."""
        if self._server is None:
            raise RuntimeError("FakeLLM is not started")
        return f"http://{self.host}:{self._server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        with self._lock:
            return len(self.script) - self._next

    def push(self, *turns: Turn) -> None:
        """Add turns to the end of the script."""
        with self._lock:
            self.script.extend(turns)

    def next_turn(self, request: dict[str, Any] | None = None) -> tuple[Turn, int]:
        """The turn for the next request and its serial number (from 1)."""
        chosen = self.responder(request) if self.responder is not None and request is not None else None
        with self._lock:
            self._serial += 1
            if chosen is not None:
                return chosen, self._serial
            if self._next >= len(self.script):
                return EXHAUSTED, self._serial
            self._next += 1
            return self.script[self._next - 1], self._serial

    def start(self) -> FakeLLM:
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server((self.host, self.port), _Handler, self)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.name = f"FakeLLM:{self._server.server_address[1]}"
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        self._stopping.set()
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def wait(self, seconds: float) -> bool:
        """Sleep in a handler; ``True`` when the server is stopping meanwhile."""
        return self._stopping.wait(seconds)

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[_Handler], fake: FakeLLM) -> None:
        self.fake = fake
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client going away mid-answer is expected here; stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small stream chunks go out at once
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake.connections += 1

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: the requests are in ``FakeLLM.requests``."""

    def do_GET(self) -> None:
        self._record(None, probe=True)
        path = _route(self.path)
        size = self.server.fake.context_size
        if path == "/props" and size:
            self._send_json(200, {"default_generation_settings": {"n_ctx": size}, "total_slots": 1})
        elif path in MODELS:
            self._send_json(200, MODELS[path])
        else:
            self._send_json(404, {"error": f"no route {path}"})

    def do_POST(self) -> None:
        body = self._read_json()
        path = _route(self.path)
        self._record(body, probe=path == "/api/show")
        route = ROUTES.get(path)
        size = self.server.fake.context_size
        if path == "/api/show" and size:
            self._send_json(200, {"parameters": f"num_ctx {size}", "model_info": {"llama.context_length": 131072}})
        elif route is None:
            self._send_json(404, {"error": f"no route {path}"})
        elif not isinstance(body, dict):
            self._send_json(400, route[2](400, "request body is not a JSON object"))
        else:
            turn, serial = self.server.fake.next_turn(body)
            _Answer(self, route, turn, body, serial).send()

    def _read_json(self) -> object:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.raw_body = raw
        try:
            return json.loads(raw)
        except ValueError:
            return None

    def _record(self, body: object, probe: bool = False) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = getattr(self, "raw_body", b"")
        entry = {"path": self.path, "headers": headers, "json": body, "body": raw,
                 "time": time.monotonic()}
        fake = self.server.fake
        (fake.probes if probe else fake.requests).append(entry)

    def _send_json(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


class _Answer:
    """One scripted answer: an HTTP error or a stream of events, with its faults."""

    def __init__(
        self,
        handler: _Handler,
        route: tuple[Format, EventMaker, ErrorMaker],
        turn: Turn,
        request: dict[str, Any],
        serial: int,
    ) -> None:
        self.handler, self.turn, self.request, self.serial = handler, turn, request, serial
        self.format, self.make_events, self.make_error = route

    def send(self) -> None:
        try:
            if self.turn.status is not None and self.turn.status >= 400:
                self._send_error()
            elif self.turn.fault:
                self._send_fault()
            elif self.format is formats.OPENAI and self.request.get("stream") is False:
                self.handler._send_json(200, formats.openai_whole(self.turn, self.request, self.serial))
            else:
                self._send_stream()
        except OSError:  # the client went away
            self.handler.close_connection = True

    def _send_error(self) -> None:
        status = self.turn.status or 500
        model = str(self.request.get("model", ""))
        message = self.turn.error_message or formats.default_message(status, model)
        headers = {}
        if self.turn.retry_after is not None:
            value = self.turn.retry_after
            headers["retry-after"] = str(int(value)) if value == int(value) else str(value)
        self.handler._send_json(status, self.make_error(status, message), headers)

    def _send_stream(self) -> None:
        events = self.make_events(self.turn, self.request, self.serial)
        middle = max(1, len(events) // 2)
        if self.turn.malformed:
            events.insert(middle, self.format.malformed)
        h = self.handler
        h.send_response(200)
        h.send_header("content-type", self.format.content_type)
        h.send_header("cache-control", "no-cache")
        if self.turn.gzip:
            h.send_header("content-encoding", "gzip")
        h.send_header("transfer-encoding", "chunked")
        h.end_headers()
        if self.turn.gzip:
            body = gzip.compress(self.format.preamble + b"".join(events))
            self._write(_chunked(body) + b"0\r\n\r\n")
            return
        if not (self.turn.stall or self.turn.chunk_delay or self.turn.cut_after is not None):
            self._write(b"".join(map(_chunked, [self.format.preamble, *events])) + b"0\r\n\r\n")
            return
        self._write(_chunked(self.format.preamble))
        for i, event in enumerate(events):
            if self._pause(i, middle):
                self._drop()  # stopping: cut the stream rather than leave it hanging open
                return
            if self.turn.cut_after is not None and i >= self.turn.cut_after:
                self._drop()
                return
            self._write(_chunked(event))
        self._write(b"0\r\n\r\n")

    def _send_fault(self) -> None:
        """A hostile stream (see :mod:`aiagent.testing.faults`), generated as it goes."""

        h = self.handler
        h.send_response(200)
        h.send_header("content-type", self.format.content_type)
        h.send_header("cache-control", "no-cache")
        if self.turn.fault == "gzip_bomb":
            h.send_header("content-encoding", "gzip")
        h.send_header("transfer-encoding", "chunked")
        h.end_headers()
        stopping = self.handler.server.fake._stopping
        for piece in fault_body(self.format, self.turn, self.request, self.serial):
            if stopping.is_set():
                self._drop()
                return
            self._write(_chunked(piece))
        self._write(b"0\r\n\r\n")

    def _pause(self, index: int, middle: int) -> bool:
        """Wait as the turn says before event ``index``; ``True`` if the server stops."""
        fake = self.handler.server.fake
        if self.turn.stall and index == middle and fake.wait(self.turn.stall):
            return True
        return bool(self.turn.chunk_delay and index and fake.wait(self.turn.chunk_delay))

    def _write(self, data: bytes) -> None:
        self.handler.wfile.write(data)
        self.handler.wfile.flush()

    def _drop(self) -> None:
        """Close the connection without finishing the body: a cut stream."""
        self.handler.close_connection = True
        with contextlib.suppress(OSError):
            self.handler.connection.shutdown(socket.SHUT_RDWR)


def _route(target: str) -> str:
    """The path of a request target; an absolute URL (a request sent to us as a proxy)
    counts by its path, so tests can check that clients honour proxy settings."""
    if "://" in target:
        target = "/" + target.split("://", 1)[1].partition("/")[2]
    return target.split("?")[0]


def _chunked(data: bytes) -> bytes:
    """``data`` as one HTTP/1.1 chunk (nothing for no data: an empty chunk ends the body)."""
    return f"{len(data):x}\r\n".encode() + data + b"\r\n" if data else b""


# ---- command line --------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m aiagent.testing.fakellm",
        description="Serve a scripted fake LLM (Anthropic, OpenAI and Ollama wire formats).",
    )
    parser.add_argument("--script", required=True, help="JSON script: a list of turns")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    args = parser.parse_args(argv)
    try:
        fake = FakeLLM.from_file(args.script, host=args.host, port=args.port)
        fake.start()
    except (ScriptError, OSError) as exc:
        print(f"fakellm: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    print(fake.url, flush=True)
    while not done.wait(0.5):
        pass
    fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
