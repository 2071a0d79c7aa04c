"""Fixtures: the SDK-built test server (stdio, or Streamable HTTP on loopback) and
settings that configure it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcpkit import SERVER, free_port


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The test server over Streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), "http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail("the HTTP test server exited")
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated HOME and XDG folders (no user-level MCP files of the machine)."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    for key, value in {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                       "XDG_DATA_HOME": str(home / ".local" / "share")}.items():
        monkeypatch.setenv(key, value)
    return home


@pytest.fixture
def project(tmp_path: Path, clean_env: dict[str, str]) -> Path:
    """A project folder (a git repository) whose user config has the test server as ``t``."""
    import tomli_w
    from mcpkit import stdio_entry

    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    config = Path(clean_env["XDG_CONFIG_HOME"]) / "aiagent"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(tomli_w.dumps({"mcp": {"servers": {"t": stdio_entry()}}}))
    return folder
