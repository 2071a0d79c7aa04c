"""Fixtures for the sandbox tests: a workspace in each backend available here, a process
started outside the sandbox, a loopback TCP server and an abstract Unix socket."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import CANARY, Box, git_workspace, need


@pytest.fixture(params=["bubblewrap", "landlock"])
def box(request: pytest.FixtureRequest, tmp_path: Path) -> Box:
    need(request.param)
    return Box(request.param, git_workspace(tmp_path / "ws"))


@pytest.fixture
def outsider() -> Iterator[subprocess.Popen[bytes]]:
    """A process started outside the sandbox, with a secret in its environment."""
    proc = subprocess.Popen(["sleep", "120"], env={**os.environ, "OPENAI_API_KEY": CANARY})
    yield proc
    proc.kill()
    proc.wait()


@contextlib.contextmanager
def _pong(listener: socket.socket) -> Iterator[None]:
    """Answer every connection to ``listener`` with ``pong`` until the block ends."""
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn = listener.accept()[0]
            except OSError:
                continue
            conn.sendall(b"pong")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(2)
        listener.close()


@pytest.fixture
def server() -> Iterator[int]:
    """A TCP server on loopback that answers every connection with ``pong``."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    with _pong(listener):
        yield listener.getsockname()[1]


@pytest.fixture
def abstract_socket() -> Iterator[str]:
    """An abstract Unix socket served outside the sandbox; its name (without the NUL)."""
    name = f"aiagent-test-{os.getpid()}-{threading.get_ident()}"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind("\0" + name)
    with _pong(listener):
        yield name
